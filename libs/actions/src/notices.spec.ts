import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EnvironmentEvent, SnapshotEntry } from '#des/environments';
import { environmentNotices, slackMessage } from './notices';

const entry = (event_type: SnapshotEntry['event_type'], name: string, flow?: string): SnapshotEntry => ({
  event_type,
  fingerprint: name.padEnd(64, '0'),
  artifact_name: name,
  instances: 2,
  since_snapshot: 1,
  compliant: !!flow,
  ...(flow ? { provenance: [{ flow, trail: 't1', commit: null, repo: null }] } : {}),
});
const snapshot = (entries: SnapshotEntry[], state: boolean, previous_state: boolean): EnvironmentEvent => ({
  type: 'snapshot_created',
  data: { name: 'prod', index: 7, pods: 2, artifacts: [], entries, state, previous_state },
});

describe('notices of environment events', () => {
  it('gives one notice per entry, and one when compliance flips', () => {
    const notices = environmentNotices(
      'acme',
      'prod',
      snapshot([entry('started', 'web', 'shop'), entry('exited', 'db')], false, true),
      1790000000,
    );
    assert.deepEqual(
      notices.map((n) => [n.trigger, n.flows, n.payload.event_type, n.payload.description]),
      [
        ['ON_STARTED_ARTIFACT', ['shop'], 'ARTIFACT_STARTED', 'web: 2 instances started running in prod'],
        ['ON_EXITED_ARTIFACT', [], 'ARTIFACT_EXITED', 'db: 2 instances stopped running in prod'],
        ['ON_NON_COMPLIANT_ENV', [], 'ENVIRONMENT_NON_COMPLIANT', 'prod is now non-compliant'],
      ],
    );
    assert.deepEqual(notices[0].payload.snapshot, {
      index: 7,
      status: 'non-compliant',
      api_url: '/api/v2/environments/acme/prod/snapshots/7',
    });
    assert.equal(new Set(notices.map((n) => n.key)).size, 3);
  });

  it('tells a re-assessment, and nothing for other events or a steady state', () => {
    const reassessed: EnvironmentEvent = {
      type: 'compliance_changed',
      data: {
        name: 'prod',
        snapshot_index: 7,
        state: true,
        previous_state: true,
        cause: { event_type: 'attestation_reported', subject: 'trail shop/t1' },
        entries: [entry('changed', 'web', 'shop')],
      },
    };
    const [notice, ...rest] = environmentNotices('acme', 'prod', reassessed, 1);
    assert.equal(rest.length, 0);
    assert.equal(notice.payload.description, 'web in prod is now compliant');
    const other: EnvironmentEvent = { type: 'report_received', data: { name: 'prod', pods: 1 } };
    assert.deepEqual(environmentNotices('acme', 'prod', other, 1), []);
  });

  it('tells Slack the same facts, escaped', () => {
    const [notice] = environmentNotices(
      'acme',
      'prod',
      snapshot([entry('started', '<b>&web', 'shop')], true, true),
      1,
    );
    const message = slackMessage(notice.payload) as { text: string; blocks: { text?: { text: string } }[] };
    assert.equal(message.text, '<b>&web: 2 instances started running in prod');
    assert.equal(message.blocks[0].text!.text, '*&lt;b&gt;&amp;web: 2 instances started running in prod*');
  });
});
