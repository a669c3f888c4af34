import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import { environmentDecider, EnvironmentCommand, EnvironmentEvent } from './environment.decider';
import type { RunningArtifact } from './k8s-report';

const { given } = deciderSpec(environmentDecider);
const art = (c: string, name: string, instances = 1): RunningArtifact => ({
  fingerprint: c.repeat(64),
  artifact_name: name,
  instances,
  pods: [],
});
const created: EnvironmentEvent = {
  type: 'environment_created',
  data: { name: 'prod', type: 'K8S', description: 'Production', included_environments: [] },
};
const report = (artifacts: RunningArtifact[]) =>
  ({ kind: 'report', name: 'prod', reportType: 'K8S', artifacts, pods: artifacts.length }) as const;
const play = (events: EnvironmentEvent[], artifacts: RunningArtifact[]) =>
  given(...events).when(report(artifacts)).events;

describe('environment decider', () => {
  it('creates, then updates only what changed', () => {
    const put: EnvironmentCommand = {
      kind: 'put_environment',
      name: 'prod',
      type: 'K8S',
      description: 'Production',
      included: [],
    };
    given().when(put).then([created]);
    given(created).when(put).then([]);
    given(created)
      .when({ ...put, description: 'Prod EU' })
      .then([
        {
          type: 'environment_updated',
          data: { type: 'K8S', description: 'Prod EU', included_environments: [] },
        },
      ]);
  });

  it('takes a first report as snapshot 1 with every artifact started', () => {
    const [event] = play([created], [art('a', 'web:1', 2), art('b', 'db:5')]);
    assert.equal(event.type, 'snapshot_created');
    assert.equal(event.type === 'snapshot_created' && event.data.index, 1);
    assert.deepEqual(
      event.type === 'snapshot_created' &&
        event.data.entries.map((e) => [e.event_type, e.artifact_name, e.instances]),
      [
        ['started', 'web:1', 2],
        ['started', 'db:5', 1],
      ],
    );
  });

  it('records no snapshot when the running set is the same, even if instance counts differ', () => {
    const [first] = play([created], [art('a', 'web:1', 2)]);
    given(created, first)
      .when(report([art('a', 'web:1', 7)]))
      .then([{ type: 'report_received', data: { name: 'prod', pods: 1 } }]);
  });

  it('starts and exits what changed, keeping when each artifact started', () => {
    const [s1] = play([created], [art('a', 'web:1'), art('b', 'db:5')]);
    const [s2] = play([created, s1], [art('b', 'db:5'), art('c', 'web:2', 3)]);
    assert.ok(s2.type === 'snapshot_created');
    assert.equal(s2.data.index, 2);
    assert.deepEqual(
      s2.data.entries.map((e) => [e.event_type, e.artifact_name, e.instances, e.since_snapshot]),
      [
        ['started', 'web:2', 3, 2],
        ['exited', 'web:1', 1, 1],
      ],
    );
    assert.deepEqual(
      s2.data.artifacts.map((a) => [a.artifact_name, a.since_snapshot]),
      [
        ['db:5', 1],
        ['web:2', 2],
      ],
    );
    const [s3] = play([created, s1, s2], []);
    assert.ok(s3.type === 'snapshot_created');
    assert.deepEqual(
      s3.data.entries.map((e) => e.event_type),
      ['exited', 'exited'],
    );
  });

  it('records `changed` for a running artifact whose provenance or compliance moved, when a snapshot is made', () => {
    const [s1] = play([created], [art('a', 'web:1')]);
    const traced = { ...art('a', 'web:1'), provenance: [{ flow: 'web', trail: 'b1' }], compliant: false };
    // No snapshot for that alone.
    given(created, s1)
      .when(report([traced]))
      .then([{ type: 'report_received', data: { name: 'prod', pods: 1 } }]);
    const [s2] = play([created, s1], [traced, art('b', 'db:5')]);
    assert.ok(s2.type === 'snapshot_created');
    assert.deepEqual(
      s2.data.entries.map((e) => [e.event_type, e.artifact_name]),
      [
        ['started', 'db:5'],
        ['changed', 'web:1'],
      ],
    );
    const [s3] = play([created, s1, s2], [{ ...traced, compliant: true }]);
    assert.ok(s3.type === 'snapshot_created');
    assert.deepEqual(
      s3.data.entries.map((e) => [e.event_type, e.artifact_name]),
      [
        ['exited', 'db:5'],
        ['changed', 'web:1'],
      ],
    );
  });

  it('re-assesses the running set between reports: compliance_changed only for what moved, and the state', () => {
    const web = { ...art('a', 'web:1'), provenance: [{ flow: 'web', trail: 'b1' }], compliant: true };
    const db = { ...art('b', 'db:5'), provenance: [{ flow: 'db', trail: 'b9' }], compliant: true };
    const [s1] = play([created], [web, db]);
    const cause = { event_type: 'attestation_reported', subject: 'trail web/b1' };
    const reassess = (index: number, artifacts: RunningArtifact[]): EnvironmentCommand => ({
      kind: 'reassess',
      name: 'prod',
      snapshotIndex: index,
      artifacts,
      cause,
    });
    const decision = { compliant: false, reasons: ["p: attestation 'unit-tests' of type junit is missing"] };
    const failing = { ...web, compliant: false, policy_decision: decision };
    given(created, s1)
      .when(reassess(1, [web, db]))
      .then([]);
    const changed = given(created, s1).when(reassess(1, [failing, db])).events;
    assert.deepEqual(changed, [
      {
        type: 'compliance_changed',
        data: {
          name: 'prod',
          snapshot_index: 1,
          state: false,
          previous_state: true,
          cause,
          entries: [
            {
              event_type: 'changed',
              fingerprint: web.fingerprint,
              artifact_name: 'web:1',
              instances: 1,
              since_snapshot: 1,
              compliant: false,
              provenance: web.provenance,
              policy_decision: decision,
            },
          ],
        },
      },
    ]);
    // Folded: the same assessment again changes nothing; the way back does.
    given(created, s1, ...changed)
      .when(reassess(1, [failing, db]))
      .then([]);
    const back = given(created, s1, ...changed).when(reassess(1, [web, db])).events;
    assert.ok(back[0].type === 'compliance_changed');
    assert.deepEqual([back[0].data.previous_state, back[0].data.state], [false, true]);
    // A newer snapshot exists (the assessment read an older one), or none: nothing.
    given(created, s1)
      .when(reassess(0, [failing, db]))
      .then([]);
    given()
      .when(reassess(1, [failing]))
      .then([]);
    // The next report compares with the re-assessed set: still failing is no `changed` entry.
    const [s2] = play([created, s1, ...changed], [failing, db, art('c', 'cache:2')]);
    assert.ok(s2.type === 'snapshot_created');
    assert.deepEqual(
      s2.data.entries.map((e) => [e.event_type, e.artifact_name]),
      [['started', 'cache:2']],
    );
  });

  it('attaches and detaches policies, recording only what changes, with the list after it', () => {
    const attach = (policies: string[]): EnvironmentCommand => ({
      kind: 'attach_policies',
      name: 'prod',
      policies,
    });
    const detach = (policies: string[]): EnvironmentCommand => ({
      kind: 'detach_policies',
      name: 'prod',
      policies,
    });
    const attached: EnvironmentEvent = {
      type: 'policies_attached',
      data: { policy_names: ['b', 'a'], policies: ['a', 'b'] },
    };
    given(created)
      .when(attach(['b', 'a', 'b']))
      .then([attached]);
    given(created, attached)
      .when(attach(['a']))
      .then([]);
    given(created, attached)
      .when(detach(['a', 'c']))
      .then([{ type: 'policies_detached', data: { policy_names: ['a'], policies: ['b'] } }]);
    given(created)
      .when(detach(['a']))
      .then([]);
    given()
      .when(attach(['a']))
      .thenError('not_found', 'Environment not found');
  });

  it('refuses reports for unknown, logical and other-type environments', () => {
    const reportX = report([art('a', 'x')]);
    given().when(reportX).thenError('not_found', 'Environment not found', null);
    const logical: EnvironmentEvent = {
      type: 'environment_created',
      data: { name: 'all', type: 'logical', description: '', included_environments: ['prod'] },
    };
    const refused = given(logical).when(reportX).thenError('invalid', 'Invalid report data');
    assert.deepEqual(Object.keys(refused.errors ?? {}), ['environment']);
    const ecs: EnvironmentEvent = { ...created, data: { ...created.data, type: 'ECS' } };
    const refusedEcs = given(ecs).when(reportX).thenError('invalid', 'Invalid report data');
    assert.deepEqual(Object.keys(refusedEcs.errors ?? {}), ['environment']);
  });

  it('archives and unarchives only on a change; an archived environment refuses reports; creating it again restores it', () => {
    const archived: EnvironmentEvent = { type: 'environment_archived', data: { name: 'prod' } };
    const unarchived: EnvironmentEvent = { type: 'environment_unarchived', data: { name: 'prod' } };
    given(created).when({ kind: 'archive', name: 'prod' }).then([archived]);
    given(created, archived).when({ kind: 'archive', name: 'prod' }).then([]);
    given(created, archived).when({ kind: 'unarchive', name: 'prod' }).then([unarchived]);
    given(created).when({ kind: 'unarchive', name: 'prod' }).then([]);
    given().when({ kind: 'archive', name: 'prod' }).thenError('not_found');
    given(created, archived)
      .when(report([art('a', 'web:1')]))
      .thenError('invalid', "Environment 'prod' is archived and takes no reports");
    const put: EnvironmentCommand = {
      kind: 'put_environment',
      name: 'prod',
      type: 'K8S',
      description: 'Production',
      included: [],
    };
    given(created, archived).when(put).then([unarchived]);
  });

  it('renames: the old name closes, the new one starts with all a decision needs, and numbering goes on', () => {
    const [first] = play([created], [art('a', 'web:1')]);
    const renamed: EnvironmentEvent = {
      type: 'environment_renamed',
      data: { name: 'prod', new_name: 'live' },
    };
    given(created, first).when({ kind: 'rename_out', name: 'prod', newName: 'live' }).then([renamed]);
    given().when({ kind: 'rename_out', name: 'prod', newName: 'live' }).thenError('not_found');
    given(created, first, renamed)
      .when(report([art('a', 'web:1')]))
      .thenError('not_found');
    const running = first.type === 'snapshot_created' ? first.data.artifacts : [];
    const from = {
      name: 'live',
      previous_name: 'prod',
      type: 'K8S' as const,
      description: 'Production',
      included_environments: [],
      last_index: 1,
      running,
      tags: { team: 'web' },
      policies: [],
    };
    given()
      .when({ kind: 'rename_in', name: 'live', from })
      .then([{ type: 'environment_renamed_from', data: from }]);
    given(created)
      .when({ kind: 'rename_in', name: 'prod', from })
      .thenError('conflict', "An environment named 'prod' already exists");
    const moved: EnvironmentEvent = { type: 'environment_renamed_from', data: from };
    // The same running set under the new name: no snapshot; a change: snapshot 2, diffed against what ran.
    assert.equal(play([moved], [art('a', 'web:1')])[0].type, 'report_received');
    const [second] = play([moved], [art('b', 'web:2')]);
    assert.equal(second.type === 'snapshot_created' && second.data.index, 2);
    assert.deepEqual(
      second.type === 'snapshot_created' && second.data.entries.map((e) => [e.event_type, e.artifact_name]),
      [
        ['started', 'web:2'],
        ['exited', 'web:1'],
      ],
    );
    // The old name used again: a new environment whose snapshots number after the old ones.
    const put: EnvironmentCommand = {
      kind: 'put_environment',
      name: 'prod',
      type: 'server',
      description: '',
      included: [],
    };
    given(created, first, renamed)
      .when(put)
      .then([
        {
          type: 'environment_created',
          data: {
            name: 'prod',
            type: 'server',
            description: '',
            included_environments: [],
            first_snapshot: 2,
          },
        },
      ]);
  });

  it('joins a physical environment to a logical one, once', () => {
    const logical: EnvironmentEvent = {
      type: 'environment_created',
      data: { name: 'all', type: 'logical', description: '', included_environments: ['prod'] },
    };
    given(logical)
      .when({ kind: 'join', name: 'all', physical: 'edge' })
      .then([
        {
          type: 'environment_updated',
          data: { type: 'logical', description: '', included_environments: ['edge', 'prod'] },
        },
      ]);
    given(logical).when({ kind: 'join', name: 'all', physical: 'prod' }).then([]);
    given(logical)
      .when({ kind: 'rename_member', name: 'all', from: 'prod', to: 'live' })
      .then([
        {
          type: 'environment_updated',
          data: { type: 'logical', description: '', included_environments: ['live'] },
        },
      ]);
    given(logical).when({ kind: 'rename_member', name: 'all', from: 'stage', to: 'live' }).then([]);
    given(created)
      .when({ kind: 'join', name: 'prod', physical: 'edge' })
      .thenError('invalid', "Environment 'prod' is not a logical environment");
  });
});
