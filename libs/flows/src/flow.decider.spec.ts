import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deciderSpec, tagPatch } from '#des/kernel/testing';
import { FlowCommand, flowDecider, FlowEvent, PutFlow } from './flow.decider';
import { fromLegacyTemplate, templateErrors } from './flow-template';

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

describe('flow lifecycle', () => {
  const archive: FlowCommand = { kind: 'archive_flow', name: 'backend' };
  const unarchive: FlowCommand = { kind: 'unarchive_flow', name: 'backend' };
  const archived: FlowEvent = { type: 'flow_archived', data: { name: 'backend' } };
  const unarchived: FlowEvent = { type: 'flow_unarchived', data: { name: 'backend' } };
  const archivedMessage =
    "Flow 'backend' is archived; unarchive it (PUT /flows/{org}/backend/unarchive) to change it";

  it('archives once, refuses changes while archived, and unarchives', () => {
    given(created).when(archive).then([archived]);
    given(created, archived).when(archive).then([]);
    given(created, archived)
      .when({ ...put, description: 'changed' })
      .thenError('invalid', archivedMessage);
    given(created, archived)
      .when({ kind: 'change_tags', name: 'backend', change: tagPatch({ a: 'b' }) })
      .thenError('invalid', archivedMessage);
    given(created, archived).when(unarchive).then([unarchived]);
    given(created).when(unarchive).then([]);
    given(created, archived, unarchived)
      .when({ ...put, description: 'changed' })
      .then([{ type: 'flow_updated', data: { name: 'backend', description: 'changed', template: null } }]);
    given().when(archive).thenError('not_found', 'Flow not found');
  });

  it('renames: the new name receives the flow, the old one records where it went and is free again', () => {
    const receive: FlowCommand = { kind: 'receive_renamed_flow', from: 'old', ...flow };
    const received: FlowEvent = { type: 'flow_created', data: { ...flow, renamed_from: 'old' } };
    given().when(receive).then([received]);
    given(received).when(receive).then([]);
    given(created).when(receive).thenError('invalid', "A flow named 'backend' already exists");

    const rename: FlowCommand = { kind: 'rename_flow', name: 'backend', newName: 'api' };
    const renamed: FlowEvent = { type: 'flow_renamed', data: { name: 'backend', new_name: 'api' } };
    given(created).when(rename).then([renamed]);
    given(created, renamed).when(rename).then([]);
    given().when(rename).thenError('not_found', 'Flow not found');
    given(created, { type: 'flow_archived', data: { name: 'backend' } })
      .when(rename)
      .thenError(
        'invalid',
        "Flow 'backend' is archived; unarchive it (PUT /flows/{org}/backend/unarchive) to change it",
      );
    // Taken again: a new flow under the old name.
    given(created, renamed).when(put).then([created]);
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

  it('refuses an unknown attestation type, and says which are known', () => {
    for (const type of [
      '*',
      'generic',
      'junit',
      'snyk',
      'sonar',
      'pull_request',
      'jira',
      'decision',
      'custom:person',
    ])
      assert.deepEqual(templateErrors({ trail: { attestations: [{ name: 'a', type }] } }), {}, type);
    assert.deepEqual(
      templateErrors(
        { artifacts: [{ name: 'cli', attestations: [{ name: 'foo', type: 'not-supported' }] }] },
        'template_file',
      ),
      {
        'template_file.artifacts[0].attestations[0].type':
          "must be *, generic, junit, snyk, sonar, pull_request, jira, decision or custom:<custom attestation type>, not 'not-supported'",
      },
    );
  });

  it('reads a legacy template: names, `artifact` the artifact itself, the others attestations of any type', () => {
    assert.deepEqual(templateErrors(['artifact', 'tests']), {});
    assert.deepEqual(Object.keys(templateErrors(['artifact', ''])), ['template[1]']);
    assert.deepEqual(fromLegacyTemplate(['artifact']), {});
    assert.deepEqual(fromLegacyTemplate(['artifact', 'tests', 'tests']), {
      trail: { attestations: [{ name: 'tests', type: '*' }] },
    });
  });
});
