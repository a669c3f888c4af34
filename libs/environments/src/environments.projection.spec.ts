import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { environmentsProjection } from './environments.projection';
import { snapshotView } from './compliance-model';

const { given } = projectionSpec(environmentsProjection);
const stream = 'environment-acme/prod';
const fp = (c: string) => c.repeat(64);
const provenance = (sha1: string) => [
  {
    flow: 'shop',
    trail: `t-${sha1}`,
    commit: { sha1 },
    repo: { name: 'acme/shop', url: 'https://git.example/acme/shop' },
  },
];
const artifact = (c: string, name: string, compliant: boolean) => ({
  fingerprint: fp(c),
  artifact_name: name,
  instances: 2,
  since_snapshot: 1,
  compliant,
});
const entry = (event_type: string, c: string, name: string, sha1: string, since = 1) => ({
  event_type,
  fingerprint: fp(c),
  artifact_name: name,
  instances: 2,
  since_snapshot: since,
  compliant: true,
  provenance: provenance(sha1),
});
const history = [
  {
    stream,
    type: 'environment_created',
    data: { name: 'prod', type: 'K8S', description: 'production', included_environments: [] },
  },
  {
    stream,
    type: 'snapshot_created',
    data: {
      name: 'prod',
      index: 1,
      pods: 2,
      artifacts: [artifact('a', 'ghcr.io/acme/shop:1', true)],
      entries: [entry('started', 'a', 'ghcr.io/acme/shop:1', 'c1')],
    },
    at: 10,
  },
  {
    stream,
    type: 'snapshot_created',
    data: {
      name: 'prod',
      index: 2,
      pods: 2,
      artifacts: [{ ...artifact('b', 'ghcr.io/acme/shop:2', false), since_snapshot: 2 }],
      entries: [
        entry('exited', 'a', 'ghcr.io/acme/shop:1', 'c1'),
        entry('started', 'b', 'ghcr.io/acme/shop:2', 'c2', 2),
      ],
    },
    at: 20,
  },
];

describe('environments projection', () => {
  it('keeps the environment with its latest snapshot, what runs in it, and its state', async () => {
    await given(...history).then('environments', [
      {
        _id: 'acme/prod',
        name: 'prod',
        type: 'K8S',
        latest_snapshot: 2,
        running_fingerprints: [fp('b')],
        state: false,
        last_changed_at: 20,
        policies: [],
      },
    ]);
  });

  it('writes each snapshot once, with its compliance', async () => {
    await given(...history).then('snapshots', [
      { _id: 'acme/prod/1', index: 1, timestamp: 10, compliant: true, pods: 2 },
      { _id: 'acme/prod/2', index: 2, timestamp: 20, compliant: false },
    ]);
  });

  it('gives the snapshot in force its compliance after a re-assessment, and keeps what it recorded', async () => {
    const reassessed = {
      stream,
      type: 'compliance_changed',
      data: {
        name: 'prod',
        snapshot_index: 2,
        state: true,
        previous_state: false,
        cause: { event_type: 'attestation_reported', subject: 'trail shop/t-c2' },
        entries: [{ ...entry('changed', 'b', 'ghcr.io/acme/shop:2', 'c2', 2) }],
      },
      at: 30,
    };
    const docs = await given(...history, reassessed).then('snapshots', [
      { _id: 'acme/prod/1', compliant: true, compliant_when_made: true },
      { _id: 'acme/prod/2', compliant: true, compliant_when_made: false, reassessed_at: 30 },
    ]);
    const view = snapshotView(docs.find((d) => d._id === 'acme/prod/2')!);
    assert.deepEqual(
      [
        view.compliant,
        view.compliant_when_made,
        view.artifacts[0].compliant,
        view.artifacts[0].compliant_when_made,
      ],
      [true, false, true, false],
    );
    assert.equal(view.artifacts[0].provenance?.trail, 't-c2');
    assert.deepEqual(view.artifacts[0].provenance?.commit, { sha1: 'c2' });
  });

  it('records a deployment per artifact started, naming the one it replaced and the diff between their commits', async () => {
    await given(...history).then('deployments', [
      {
        _id: `acme/prod/1/${fp('a')}`,
        deployed_at: 10,
        commit: { sha1: 'c1' },
        replaced_artifact: null,
        diff_url: null,
      },
      {
        _id: `acme/prod/2/${fp('b')}`,
        deployed_at: 20,
        snapshot_index: 2,
        commit: { sha1: 'c2' },
        replaced_artifact: {
          fingerprint: fp('a'),
          artifact_name: 'ghcr.io/acme/shop:1',
          snapshot_index: 1,
          commit: { sha1: 'c1' },
        },
        diff_url: 'https://git.example/acme/shop/compare/c1...c2',
      },
    ]);
  });

  it('marks an archived environment, and a renamed one under both names: the old closed, the new going on', async () => {
    const archived = { stream, type: 'environment_archived', data: { name: 'prod' }, at: 30 };
    await given(...history, archived).then('environments', [{ _id: 'acme/prod', archived: true }]);
    const renamed = { stream, type: 'environment_renamed', data: { name: 'prod', new_name: 'live' }, at: 40 };
    const moved = {
      stream: 'environment-acme/live',
      type: 'environment_renamed_from',
      data: {
        name: 'live',
        previous_name: 'prod',
        type: 'K8S',
        description: 'production',
        included_environments: [],
        last_index: 2,
        running: [{ ...artifact('b', 'ghcr.io/acme/shop:2', false), since_snapshot: 2, pods: [] }],
        tags: { team: 'shop' },
        policies: [],
      },
      at: 40,
    };
    await given(...history, renamed, moved).then('environments', [
      { _id: 'acme/live', name: 'live', renamed_from: 'prod', latest_snapshot: 2, first_snapshot: 3 },
      { _id: 'acme/prod', renamed_to: 'live', running_fingerprints: [] },
    ]);
    const again = {
      stream,
      type: 'environment_created',
      data: { name: 'prod', type: 'server', description: '', included_environments: [], first_snapshot: 3 },
      at: 50,
    };
    await given(...history, renamed, moved, again).then('environments', [
      { _id: 'acme/live', renamed_from: 'prod' },
      { _id: 'acme/prod', renamed_to: null, type: 'server', latest_snapshot: 2, first_snapshot: 3 },
    ]);
  });
});
