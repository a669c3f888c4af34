import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flowDecider as d, FlowEvent } from './flow.decider';
import { templateErrors } from './flow-template';

const ctx = { now: 0, newId: () => 'x' };
const given = (events: FlowEvent[]) => events.reduce((s, e) => d.evolve(s, e, 0), d.initialState);
const put = { name: 'backend', description: 'API', template: null, tags: { team: 'core' } };

describe('flow decider', () => {
  it('creates a flow with its tags, then updates only what changed', () => {
    const [created] = d.decide(put, given([]), ctx);
    assert.deepEqual(created, { type: 'flow_created', data: put });
    assert.deepEqual(d.decide(put, given([created]), ctx), []);
    const template = { trail: { attestations: [{ name: 'tests', type: 'junit' }] } };
    assert.deepEqual(d.decide({ ...put, template }, given([created]), ctx), [
      { type: 'flow_updated', data: { name: 'backend', description: 'API', template } },
    ]);
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
