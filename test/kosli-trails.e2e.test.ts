import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';

const FP1 = '1'.repeat(64);
const FP2 = '2'.repeat(64);
const FP3 = '3'.repeat(64);
const SHA1 = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const SHA2 = 'b1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const TEMPLATE = {
  trail: { attestations: [{ name: 'bar', type: 'generic' }] },
  artifacts: [{ name: 'cli', attestations: [{ name: 'foo', type: 'generic' }] }],
};

/**
 * Trails and artifacts as the Kosli CLI's commands use them: an artifact
 * attested to a trail not begun yet begins it, `report artifact` (no trail)
 * and the commit it lists changes since, lookups by commit, and a trail with
 * its attestations' statuses and its events.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`trails and artifacts as the Kosli CLI uses them (${mode} mode)`, () => {
    let t: TestApp;
    const artifact = (fingerprint: string, sha: string, extra: Record<string, unknown> = {}) => ({
      fingerprint,
      filename: `app-${fingerprint.slice(0, 4)}`,
      git_commit: sha,
      git_commit_info: { sha1: sha, branch: 'main', message: 'm', author: 'A <a@example.com>', timestamp: 1 },
      repo_info: { name: 'acme/cli', provider: 'github', id: '42', url: 'https://github.com/acme/cli' },
      build_url: 'https://ci.example/1',
      commit_url: `https://github.com/acme/cli/commit/${sha}`,
      ...extra,
    });

    before(async () => {
      t = await startApp({ mode });
      await t.http.put('/api/v2/flows/acme').send({ name: 'cli', template: TEMPLATE }).expect(201);
    });
    after(async () => t.close());

    it('begins the trail an artifact is attested to when it has not begun, with the artifact in it', async () => {
      const res = await t.http
        .post('/api/v2/artifacts/acme/cli')
        .send(artifact(FP1, SHA1, { trail_name: 'new-trail', template_reference_name: 'cli' }));
      assert.equal(res.status, 201, res.text);
      const trail = (await t.http.get('/api/v2/trails/acme/cli/new-trail').expect(200)).body;
      assert.deepEqual(
        trail.artifacts.map((a: { fingerprint: string }) => a.fingerprint),
        [FP1],
      );
      assert.equal(trail.git_commit_info.sha1, SHA1);
      // The repository it names is registered, as a begun trail's is.
      assert.equal((await t.http.get('/api/v2/repos/acme/acme/cli').expect(200)).body.repo_id, '42');
    });

    it('lists the commit of the artifact reported last, other than the one asked about, on a branch', async () => {
      const latest = (fp: string, query = '') =>
        t.http.get(`/api/v2/artifacts/acme/cli/${fp}/latest_commit${query}`).expect(200);
      assert.deepEqual((await latest(FP1)).body, { latest_commit: null });
      assert.deepEqual((await latest(FP2)).body, { latest_commit: SHA1 });
      assert.deepEqual((await latest(FP2, '?branch=main')).body, { latest_commit: SHA1 });
      assert.deepEqual((await latest(FP2, '?branch=other')).body, { latest_commit: null });
      assert.deepEqual(
        (await t.http.get(`/api/v2/artifacts/acme/ghost/${FP2}/latest_commit`).expect(404)).body,
        {
          message: 'Flow not found',
        },
      );
    });

    it('reports an artifact without a trail (`kosli report artifact`) into the trail its fingerprint names', async () => {
      const res = await t.http.post('/api/v2/artifacts/acme/cli').send(artifact(FP2, SHA2));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.trail, FP2);
      assert.equal((await t.http.get(`/api/v2/trails/acme/cli/${FP2}`).expect(200)).body.artifacts.length, 1);
      const latest = await t.http.get(`/api/v2/artifacts/acme/cli/${FP3}/latest_commit`).expect(200);
      assert.deepEqual(latest.body, { latest_commit: SHA2 });
    });

    it('keeps the commits `kosli report artifact` lists since the previous artifact', async () => {
      const commits = [
        { sha1: SHA2, message: 'second', author: 'A', timestamp: 2, branch: 'main', parents: [SHA1] },
      ];
      const res = await t.http
        .post('/api/v2/artifacts/acme/cli')
        .send(artifact(FP3, SHA2, { commits_list: commits }));
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.commits_list, commits);
      const tooMany = await t.http
        .post('/api/v2/artifacts/acme/cli')
        .send(artifact(FP3, SHA2, { commits_list: Array.from({ length: 1001 }, () => commits[0]) }));
      assert.equal(tooMany.status, 400);
    });

    it('lists artifacts of a flow or repository that exists, and says which does not', async () => {
      const list = await t.http.get('/api/v2/artifacts/acme?flow_name=cli&repo_name=acme/cli').expect(200);
      assert.ok(list.body.length >= 2);
      assert.match(
        list.body[0].html_url,
        /\/acme\/flows\/cli\/artifacts\/[0-9a-f]{64}\?artifact_id=[0-9a-f]{64}$/,
      );
      assert.deepEqual((await t.http.get('/api/v2/artifacts/acme?flow_name=ghost').expect(404)).body, {
        message: 'Flow not found',
      });
      assert.deepEqual((await t.http.get('/api/v2/artifacts/acme?repo_name=non-existing').expect(404)).body, {
        message: "Repo 'non-existing' not found",
      });
    });

    it('says when a search matches nothing, in the words the CLI prints', async () => {
      const none = await t.http.get(`/api/v2/search/acme/sha/${'f0'.repeat(20)}`).expect(404);
      assert.deepEqual(none.body, { message: `No matches for '${'f0'.repeat(20)}'.` });
    });

    it('shows an artifact in its trail’s state: INCOMPLETE while the template expects more', async () => {
      const [found] = (await t.http.get(`/api/v2/artifacts/acme/cli/fingerprint/${FP1}`).expect(200)).body;
      assert.equal(found.state, 'INCOMPLETE');
    });

    it('update default-org: a key’s own organization is its default; another is refused', async () => {
      const own = await t.http.put('/api/v2/user/acme').expect(200);
      assert.equal(own.body, 'Default organization is acme');
      await t.http.put('/api/v2/user/other-org').expect(403);
    });

    it('finds artifacts by a full or a short commit sha, and within one trail', async () => {
      const byCommit = (path: string) => t.http.get(`/api/v2/artifacts/acme/cli/${path}`);
      const full = await byCommit(`commit_sha/${SHA1}`).expect(200);
      assert.deepEqual(
        full.body.map((a: { fingerprint: string }) => a.fingerprint),
        [FP1],
      );
      const short = await byCommit(`commit_sha/${SHA1.slice(0, 7)}`).expect(200);
      assert.deepEqual(
        short.body.map((a: { fingerprint: string }) => a.fingerprint),
        [FP1],
      );
      await byCommit(`commit_sha/${SHA1}?trail=new-trail`).expect(200);
      assert.deepEqual((await byCommit(`commit_sha/${SHA1}?trail=other`).expect(404)).body, {
        message: 'Artifact not found',
      });
      await byCommit(`fingerprint/${FP1}?trail=new-trail`).expect(200);
    });

    it("shows a trail's attestations' statuses against the template, and its events in Kosli's names", async () => {
      const before = (await t.http.get('/api/v2/trails/acme/cli/new-trail').expect(200)).body;
      assert.deepEqual(before.compliance_status.attestations_statuses, [
        {
          attestation_name: 'bar',
          attestation_type: 'generic',
          attestation_id: null,
          status: 'MISSING',
          is_compliant: null,
          unexpected: false,
        },
      ]);
      assert.equal(before.compliance_status.artifacts_statuses.cli.status, 'INCOMPLETE');
      await t.http
        .post('/api/v2/attestations/acme/cli/trail/new-trail/generic')
        .send({ attestation_name: 'bar' })
        .expect(201);
      await t.http
        .post('/api/v2/attestations/acme/cli/trail/new-trail/generic')
        .send({ attestation_name: 'foo', artifact_fingerprint: FP1, is_compliant: false })
        .expect(201);
      const after = (await t.http.get('/api/v2/trails/acme/cli/new-trail').expect(200)).body;
      const bar = after.compliance_status.attestations_statuses[0];
      assert.deepEqual([bar.status, bar.is_compliant], ['COMPLETE', true]);
      assert.ok(bar.attestation_id, 'the attestation made is named by its id');
      const cli = after.compliance_status.artifacts_statuses.cli;
      assert.deepEqual([cli.fingerprint, cli.status], [FP1, 'NON-COMPLIANT']);
      assert.equal(cli.attestations_statuses[0].is_compliant, false);
      assert.deepEqual(
        after.events.map((e: { type: string }) => e.type),
        [
          'trail_reported',
          'artifact_creation_reported',
          'trail_attestation_reported',
          'artifact_attestation_reported',
        ],
      );
      const attested = after.events[3];
      assert.deepEqual(
        [attested.target_artifact, attested.template_reference_name, attested.is_compliant],
        ['cli', 'foo', false],
      );
      // At the instant before the attestations: as it was then.
      const then = (
        await t.http.get(`/api/v2/trails/acme/cli/new-trail?at=${before.last_modified_at}`).expect(200)
      ).body;
      assert.equal(then.events.length, 2);
      assert.equal(then.compliance_status.attestations_statuses[0].status, 'MISSING');
    });
  });
}
