import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import { PolicyCommand, policyDecider, PolicyEvent } from './policy.decider';

const { given } = deciderSpec(policyDecider);
const yaml = '_schema: https://kosli.com/schemas/policy/environment/v1\n';
const put = (fields: Partial<PolicyCommand> = {}): PolicyCommand => ({
  kind: 'put_policy',
  name: 'prod-policy',
  description: 'What may run in production',
  type: 'env',
  comment: 'first',
  yaml,
  author: 'admin',
  ...fields,
});
const created: PolicyEvent = {
  type: 'policy_created',
  data: {
    name: 'prod-policy',
    description: 'What may run in production',
    type: 'env',
    version: 1,
    comment: 'first',
    policy_yaml: yaml,
    created_by: 'admin',
  },
};

describe('policy decider', () => {
  it('creates a policy at version 1', () => {
    given().when(put()).then([created]);
  });

  it('adds a version when the file changes, and nothing when it is the same', () => {
    const changed = `${yaml}artifacts:\n  provenance:\n    required: true\n`;
    const v2: PolicyEvent = {
      type: 'policy_version_added',
      data: {
        description: 'What may run in production',
        version: 2,
        comment: 'provenance',
        policy_yaml: changed,
        created_by: 'ci',
      },
    };
    given(created)
      .when(put({ yaml: changed, comment: 'provenance', author: 'ci' }))
      .then([v2]);
    given(created, v2)
      .when(put({ yaml: changed, comment: 'again' }))
      .then([]);
  });

  it('records a changed description without a version', () => {
    given(created)
      .when(put({ description: 'Production rules' }))
      .then([{ type: 'policy_updated', data: { description: 'Production rules' } }]);
  });
});
