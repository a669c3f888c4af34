import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { policiesProjection } from './policies.projection';

const { given } = projectionSpec(policiesProjection);
const yaml = (control: string) =>
  `_schema: https://kosli.com/schemas/policy/environment/v1
artifacts:
  provenance:
    required: true
  attestations:
    - name: tests
      type: junit
      for_control: ${control}
`;
const version = (n: number, control: string) => ({
  version: n,
  comment: `v${n}`,
  policy_yaml: yaml(control),
  created_by: 'ci',
});

describe('policies projection', () => {
  it('keeps every version, the controls the latest one names, its events, and who consumes it', async () => {
    await given(
      {
        stream: 'policy-acme/prod',
        type: 'policy_created',
        data: { name: 'prod', description: 'first', type: 'env', ...version(1, 'SOC2-CC8') },
      },
      {
        stream: 'policy-acme/prod',
        type: 'policy_version_added',
        data: { description: 'second', ...version(2, 'ISO-A8') },
        at: 10,
      },
      { stream: 'environment-acme/prod-eu', type: 'policies_attached', data: { policy_names: ['prod'] } },
      { stream: 'environment-acme/prod-us', type: 'policies_attached', data: { policy_names: ['prod'] } },
      { stream: 'environment-acme/prod-eu', type: 'policies_detached', data: { policy_names: ['prod'] } },
    ).then('policies', [
      {
        _id: 'acme/prod',
        name: 'prod',
        description: 'second',
        created_at: 1,
        last_modified_at: 10,
        latest_version: 2,
        controls: ['ISO-A8'],
        versions: [
          { ...version(1, 'SOC2-CC8'), timestamp: 1 },
          { ...version(2, 'ISO-A8'), timestamp: 10 },
        ],
        events: [
          { type: 'policy_created', timestamp: 1, user: 'spec', data: { version: 1 } },
          { type: 'policy_version_added', timestamp: 10, user: 'spec', data: { version: 2 } },
        ],
        consuming_envs: ['prod-us'],
      },
    ]);
  });
});
