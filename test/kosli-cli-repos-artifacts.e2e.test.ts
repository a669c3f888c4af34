import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';
import { replay, replayAll } from './support/kosli-replay';

const ARTIFACT = '7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9';
const REPORTED = '847411c6124e719a4e8da2550ac5c116b7ff930493ce8a061486b48db8a5aaa0';

/**
 * The Kosli CLI's repository, artifact and trail commands against this
 * service, each replayed from what the CLI sent (recorded with
 * test/kosli-cli/record.mjs, GITHUB_REPOSITORY=kosli-dev/cli set as CI sets
 * it), then the effect checked as the CLI reads it.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`the Kosli CLI's repositories, artifacts and trails, replayed (${mode} mode)`, () => {
    let t: TestApp;
    const ok = async (command: string) => {
      for (const res of await replayAll(t.http, command))
        assert.ok(res.status < 300, `${command}: ${res.text}`);
    };

    before(async () => {
      t = await startApp({ mode, org: 'demo' });
      await ok('create-flow-lead');
      await ok('begin-trail-github');
    });
    after(async () => t.close());

    it('get repo owner/name (the "/" unescaped): the repository, with its id here and GitHub’s', async () => {
      const res = await replay(t.http, 'get-repo');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.body.name, res.body.provider, res.body.repo_id],
        ['kosli-dev/cli', 'github', '1234567890'],
      );
    });

    it('tag repo <id> (read by its id, then patched), then list repos filtered by text and tag', async () => {
      await ok('tag-repo');
      const res = await replay(t.http, 'list-repos-filtered');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.repos.map((r: { name: string; tags: Record<string, string> }) => [r.name, r.tags]),
        [['kosli-dev/cli', { team: 'platform' }]],
      );
    });

    it('attest artifact to a trail not begun: the trail is begun, with the artifact', async () => {
      const res = await replay(t.http, 'attest-artifact-new-trail');
      assert.equal(res.status, 201, res.text);
      const trail = (await t.http.get('/api/v2/trails/demo/shop/t2').expect(200)).body;
      assert.deepEqual(
        trail.artifacts.map((a: { fingerprint: string }) => a.fingerprint),
        [ARTIFACT],
      );
    });

    it('report artifact: the latest commit asked first, then the artifact with the commits since', async () => {
      const [latest, reported] = await replayAll(t.http, 'report-artifact');
      assert.equal(latest.status, 200, latest.text);
      assert.equal(typeof latest.body.latest_commit, 'string', 'the artifact attested before');
      assert.equal(reported.status, 201, reported.text);
      assert.equal(reported.body.trail, REPORTED, 'no trail given: the trail its fingerprint names');
      assert.ok(Array.isArray(reported.body.commits_list));
    });

    it('get artifact flow:<short commit>: the artifacts of that commit, each with its history', async () => {
      const res = await replay(t.http, 'get-artifact-commit');
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.length >= 1);
      assert.match(res.body[0].history[0].event, / reported$/);
      assert.match(res.body[0].html_url, /\/demo\/flows\/shop\/artifacts\/[0-9a-f]{64}\?artifact_id=/);
    });

    it('get trail: each expected attestation’s status, the artifact’s under its template name, and the events', async () => {
      await ok('attest-generic-on-artifact');
      const res = await replay(t.http, 'get-trail-statuses');
      assert.equal(res.status, 200, res.text);
      const { attestations_statuses, artifacts_statuses } = res.body.compliance_status;
      assert.deepEqual(
        attestations_statuses.map((s: { attestation_name: string; status: string }) => [
          s.attestation_name,
          s.status,
        ]),
        [['bar', 'MISSING']],
      );
      assert.deepEqual(
        artifacts_statuses.cli.attestations_statuses.map(
          (s: { attestation_name: string; status: string }) => [s.attestation_name, s.status],
        ),
        [['foo', 'COMPLETE']],
      );
      assert.deepEqual(
        res.body.events.map((e: { type: string }) => e.type),
        ['trail_reported', 'artifact_creation_reported', 'artifact_attestation_reported'],
      );
    });

    it('evaluate trail: the trail, then each attestation by the id its status gives', async () => {
      const trail = await replay(t.http, 'evaluate-trail');
      assert.equal(trail.status, 200, trail.text);
      const id = trail.body.compliance_status.artifacts_statuses.cli.attestations_statuses[0].attestation_id;
      // The CLI's next request (the id differs on every run, so it is made here as its source makes it).
      const detail = await t.http.get('/api/v2/attestations/demo').query({ attestation_id: id }).expect(200);
      assert.equal(detail.body.data[0].attestation_name, 'foo');
      assert.ok(detail.body.data[0].html_url);
    });

    it('update default-org: the key’s own organization', async () => {
      const res = await replay(t.http, 'update-default-org');
      assert.equal(res.status, 200, res.text);
    });

    it('log environment --start 1: the events from snapshot 1', async () => {
      await ok('create-environment-server');
      await ok('snapshot-server-prod');
      const res = await replay(t.http, 'log-environment-start');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.map((e: { snapshot_index: number }) => e.snapshot_index),
        [1],
      );
    });

    it('assert artifact --environment: scope environment, judged by its trail (no policy attached)', async () => {
      const res = await replay(t.http, 'assert-artifact-environment');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.body.scope, res.body.environment, res.body.compliant, res.body.policy_evaluations],
        ['environment', 'prod', false, []],
        'the trail misses its bar attestation',
      );
    });
  });
}
