import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { changesOf, type ChangeFacts, populationSha256, sampleOf, withEvidence } from './change-population';

const row = (
  event_type: 'started' | 'exited' | 'changed',
  timestamp: number,
  fp: string,
  compliant: boolean,
  snapshot = 1,
) => ({
  environment: 'prod',
  timestamp,
  event_type,
  snapshot_index: snapshot,
  artifact_name: `app:${fp}`,
  fingerprint: fp.repeat(64).slice(0, 64),
  compliant,
});

const facts = (over: Partial<ChangeFacts> = {}): ChangeFacts => ({
  flow: 'shop',
  trail: 't1',
  commit: { sha1: 'abc', author: 'Grace Hopper <grace@example.com>' },
  evidence: { trail: {}, artifact: {} },
  templateMissing: [],
  policyReasons: [],
  ...over,
});

describe('change population', () => {
  it('takes the started rows of the period, with their compliance then and as later rows left it', async () => {
    const changes = await changesOf(
      [
        row('started', 5, 'a', true),
        row('started', 10, 'b', false),
        row('changed', 12, 'b', true, 2),
        row('exited', 15, 'b', true, 3),
        row('changed', 16, 'b', false, 3), // another run's row: b no longer runs
        row('started', 20, 'c', true, 4),
        row('changed', 30, 'c', false, 5), // after `to`, before the pin: counts
      ],
      { from: 10, to: 25 },
    );
    assert.deepEqual(
      changes.map((c) => [c.id.slice(0, 8), c.started_at, c.compliant_when_started, c.compliant]),
      [
        ['prod#1:b', 10, false, true],
        ['prod#4:c', 20, true, false],
      ],
    );
  });

  it('hashes the sorted ids, and draws the sample anyone can draw again from them', () => {
    const ids = ['prod#2:b', 'prod#1:a', 'qa#1:a'];
    const expected = createHash('sha256').update('prod#1:a\nprod#2:b\nqa#1:a').digest('hex');
    assert.equal(populationSha256(ids), expected);
    const population = Array.from({ length: 50 }, (_, i) => ({ id: `prod#${i}:x` }));
    const drawn = sampleOf(population, 'audit-2026', 5);
    const rank = (id: string) => createHash('sha256').update(`audit-2026:${id}`).digest('hex');
    const byHand = population
      .map((c) => c.id)
      .sort((a, b) => (rank(a) < rank(b) ? -1 : 1))
      .slice(0, 5);
    assert.deepEqual(
      drawn.map((c) => c.id),
      byHand,
    );
    assert.deepEqual(
      sampleOf([...population].reverse(), 'audit-2026', 5),
      drawn,
      'the order given does not matter',
    );
    assert.notDeepEqual(sampleOf(population, 'another', 5), drawn);
  });

  it('flags no provenance, non-compliance, missing and late evidence, and self-approval', async () => {
    const [change] = await changesOf([row('started', 100, 'a', false)], { from: 0, to: 200 });
    const bare = withEvidence(change, facts({ flow: null, trail: null, commit: null }));
    assert.deepEqual(
      bare.gaps.map((g) => g.kind),
      ['no_provenance', 'non_compliant'],
    );
    const full = withEvidence(
      change,
      facts({
        evidence: {
          trail: {
            review: {
              type: 'pull_request',
              compliant: true,
              recorded_at: 90,
              authors: ['ann'],
              approvers: ['ann', 'grace', 'bob'],
            },
          },
          artifact: { scan: { type: 'snyk', compliant: true, recorded_at: 150 } },
        },
        templateMissing: ['tests'],
        policyReasons: ['prod-policy: attestation junit is missing', 'prod-policy: scan is not compliant'],
      }),
    );
    assert.deepEqual(
      full.gaps.map((g) => [g.kind, g.detail]),
      [
        ['non_compliant', 'not compliant when it started'],
        ['missing_attestation', "tests: required by the flow's template, not on the trail"],
        ['missing_attestation', 'prod-policy: attestation junit is missing (an attached policy)'],
        [
          'late_evidence',
          'artifact attestation scan recorded at 1970-01-01T00:02:30.000000Z, after the artifact started running in prod at 1970-01-01T00:01:40.000000Z',
        ],
        ['self_approved', 'review: ann approved their own pull request'],
        ['self_approved', 'review: grace approved and authored the commit'],
      ],
    );
  });
});
