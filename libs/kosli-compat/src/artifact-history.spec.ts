import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { artifactHistory } from './artifact-history';

describe('artifact history', () => {
  it('lists reported, attested, started and exited, oldest first', () => {
    const history = artifactHistory({
      fingerprint: 'f'.repeat(64),
      filename: 'app.bin',
      git_commit: null,
      git_commit_info: null,
      build_url: null,
      commit_url: null,
      repo_info: null,
      template_reference_name: 'cli',
      reported_at: 10,
      attestations: {
        scan: {
          id: 'a1',
          name: 'scan',
          type: 'snyk',
          compliant: false,
          description: '',
          origin_url: null,
          user_data: {},
          evidence: {},
          reported_at: 20,
        },
      },
      running: [{ environment: 'prod', snapshot_index: 4, since: 40 }],
      exited: [{ environment: 'staging', snapshot_index: 2, since: 30, until: 35 }],
    });
    assert.deepEqual(history, [
      { event: 'cli reported', timestamp: 10 },
      { event: 'scan attestation reported (non-compliant)', timestamp: 20 },
      { event: 'started running in staging#2', timestamp: 30 },
      { event: 'exited from staging#2', timestamp: 35 },
      { event: 'started running in prod#4', timestamp: 40 },
    ]);
  });
});
