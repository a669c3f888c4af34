import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deciderSpec, tagPatch } from '#des/kernel/testing';
import { FlowCommand, flowDecider, FlowEvent, PutFlow } from './flow.decider';
import { templateErrors } from './flow-template';

const { given } = deciderSpec(flowDecider);
const flow: PutFlow = { name: 'backend', description: 'API', template: null, tags: { team: 'core' } };
const put: FlowCommand = { kind: 'put_flow', ...flow };
const created: FlowEvent = { type: 'flow_created', data: flow };

describe('flow decider', () => {
  it('creates a flow with its tags', () => {
    given().when(put).then([created]);
  });

  it('changes nothing when nothing changed', () => {
    given(created).when(put).then([]);
  });

  it('changes tags only through a tag patch, and refuses one for an unknown flow', () => {
    const patch = (...change: Parameters<typeof tagPatch>): FlowCommand => ({
      kind: 'change_tags',
      name: 'backend',
      change: tagPatch(...change),
    });
    const retagged: FlowEvent = {
      type: 'tags_changed',
      data: { set_tags: { tier: '1' }, remove_tags: ['team'], tags: { tier: '1' } },
    };
    given(created)
      .when(patch({ tier: '1' }, ['team']))
      .then([retagged]);
    given(created, retagged)
      .when(patch({ tier: '1' }))
      .then([]);
    given()
      .when(patch({ tier: '1' }))
      .thenError('not_found', 'Resource not found');
  });

  it('updates the description and template, keeping the tags set at creation', () => {
    const template = { trail: { attestations: [{ name: 'tests', type: 'junit' as const }] } };
    given(created)
      .when({ ...put, template, tags: {} })
      .then([{ type: 'flow_updated', data: { name: 'backend', description: 'API', template } }]);
  });
});

describe('templateErrors', () => {
  it('accepts a template and names each bad field', () => {
    assert.deepEqual(
      templateErrors({
        trail: { attestations: [{ name: 'tests', type: 'junit' }] },
        artifacts: [{ name: 'backend', attestations: [{ name: 'scan', type: 'snyk' }] }],
      }),
      {},
    );
    const errors = templateErrors({ trail: { attestations: [{ name: '-x' }] }, extra: 1 });
    assert.deepEqual(Object.keys(errors).sort(), [
      'template.extra',
      'template.trail.attestations[0].name',
      'template.trail.attestations[0].type',
    ]);
    assert.equal(errors['template.extra'], 'is not allowed');
  });
});
