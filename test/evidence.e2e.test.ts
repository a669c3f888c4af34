import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';

const FP = 'c0ffee'.padEnd(64, '0');
const TEMPLATE = {
  trail: { attestations: [{ name: 'unit-tests', type: 'junit' }] },
  artifacts: [{ name: 'backend', attestations: [{ name: 'scan', type: 'snyk' }] }],
};

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`evidence: flows, trails, artifacts, attestations (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode });
    });
    after(async () => t.close());

    /** The trail's compliance: its status and what is missing and failing (the per-attestation statuses: kosli-trails). */
    const status = async () => {
      const { status, missing, failing } = (await t.http.get('/api/v2/trails/acme/backend/main-42')).body
        .compliance_status;
      return { status, missing, failing };
    };
    const attest = (type: string, body: Record<string, unknown>) =>
      t.http.post(`/api/v2/attestations/acme/backend/trail/main-42/${type}`).send(body);

    it('tells the whole story of a trail, compliance following the template', async () => {
      const flow = await t.http
        .put('/api/v2/flows/acme')
        .send({ name: 'backend', description: 'API service', template: TEMPLATE, tags: { team: 'core' } });
      assert.equal(flow.status, 201);
      assert.deepEqual(flow.body.template, TEMPLATE);
      assert.equal(
        (
          await t.http
            .put('/api/v2/flows/acme')
            .send({ name: 'backend', description: 'API service', template: TEMPLATE })
        ).status,
        200,
      );

      const trail = await t.http.put('/api/v2/trails/acme/backend').send({
        name: 'main-42',
        description: 'build 42 of main',
        git_commit_info: {
          sha1: 'abc123',
          message: 'Fix checkout',
          author: 'ada',
          branch: 'main',
          timestamp: 1_790_000_000,
        },
        repo_info: { name: 'acme/backend', url: 'https://git.example/acme/backend', provider: 'github' },
      });
      assert.equal(trail.status, 201);
      const shown = trail.body.compliance_status;
      assert.deepEqual(
        [shown.status, shown.missing, shown.failing],
        ['INCOMPLETE', ['unit-tests', 'artifact/backend'], []],
      );

      const artifact = await t.http.post('/api/v2/artifacts/acme/backend').send({
        fingerprint: FP,
        filename: 'ghcr.io/acme/backend:42',
        trail_name: 'main-42',
        git_commit: 'abc123',
        build_url: 'https://ci.example/42',
        template_reference_name: 'backend',
      });
      assert.equal(artifact.status, 201);
      assert.equal(artifact.body.trail, 'main-42');
      assert.deepEqual((await status()).missing, ['unit-tests', 'artifact/backend/scan']);

      const failing = await attest('junit', {
        attestation_name: 'unit-tests',
        junit_results: [{ name: 'api', tests: 120, failures: 2, errors: 0 }],
      });
      assert.equal(failing.status, 201);
      assert.equal(failing.body.compliant, false);
      assert.equal((await status()).status, 'NON-COMPLIANT');

      await attest('junit', {
        attestation_name: 'unit-tests',
        junit_results: [{ name: 'api', tests: 120, failures: 0, errors: 0 }],
      });
      assert.deepEqual(
        await status(),
        { status: 'INCOMPLETE', missing: ['artifact/backend/scan'], failing: [] },
        'the latest attestation of a name wins',
      );

      const scan = await attest('snyk', {
        attestation_name: 'scan',
        artifact_fingerprint: FP,
        snyk_results: { vulnerabilities: [] },
      });
      assert.equal(scan.body.compliant, true);
      assert.equal((await status()).status, 'COMPLIANT');

      assert.equal(
        (
          await attest('pull_request', {
            attestation_name: 'review',
            pull_requests: [{ url: 'https://git.example/pr/7', state: 'merged' }],
          })
        ).body.compliant,
        true,
      );
      assert.equal(
        (
          await attest('generic', {
            attestation_name: 'manual-check',
            is_compliant: true,
            user_data: { by: 'ops' },
          })
        ).body.compliant,
        true,
      );
      assert.equal((await status()).status, 'COMPLIANT');
      const jira = await attest('jira', {
        attestation_name: 'tickets',
        jira_results: [
          { issue_key: 'SHOP-1', issue_exists: true },
          { issue_key: 'SHOP-404', issue_exists: false },
        ],
      });
      assert.equal(jira.body.compliant, false);
      assert.deepEqual((await status()).failing, ['tickets']);

      const full = (await t.http.get('/api/v2/trails/acme/backend/main-42')).body;
      assert.deepEqual(Object.keys(full.attestations).sort(), [
        'manual-check',
        'review',
        'tickets',
        'unit-tests',
      ]);
      assert.equal(full.artifacts[0].attestations.scan.type, 'snyk');
      assert.deepEqual(full.git_commit_info.sha1, 'abc123');
      assert.equal(full.event_count, 8);
      // The trail shows its first events in Kosli's names (at most 200); the whole timeline is paged.
      assert.deepEqual(full.events.map((e: { type: string }) => e.type).slice(0, 2), [
        'trail_reported',
        'artifact_creation_reported',
      ]);
      assert.equal(full.events.length, 8);
      const timeline = (await t.http.get('/api/v2/trails/acme/backend/main-42/events?per_page=5')).body;
      const rest = (await t.http.get(timeline._links.next)).body;
      assert.deepEqual(
        [timeline.total_count, timeline.total_pages, rest.page, rest._links.next],
        [8, 2, 2, null],
      );
      const events = [...timeline.events, ...rest.events];
      assert.deepEqual(
        events.map((e: { seq: number; type: string }) => [e.seq, e.type]),
        [
          [0, 'trail_reported'],
          [1, 'artifact_reported'],
          ...[2, 3, 4, 5, 6, 7].map((seq) => [seq, 'attestation_reported']),
        ],
      );
      assert.ok(
        events.every(
          (e: { timestamp: number }, i: number, all: { timestamp: number }[]) =>
            i === 0 || e.timestamp >= all[i - 1].timestamp,
        ),
      );

      const read = await t.http.get(`/api/v2/artifacts/acme/backend/${FP}`);
      assert.deepEqual(
        [read.status, read.body.trail, Object.keys(read.body.attestations)],
        [200, 'main-42', ['scan']],
      );
      const list = await t.http.get('/api/v2/trails/acme/backend');
      assert.deepEqual(
        list.body.map((x: { name: string; compliance_status: { status: string } }) => [
          x.name,
          x.compliance_status.status,
        ]),
        [['main-42', 'NON-COMPLIANT']],
      );
    });

    it('attests several artifacts at once with target_artifacts', async () => {
      const second = 'd'.repeat(64);
      await t.http.post('/api/v2/artifacts/acme/backend').send({
        fingerprint: second,
        filename: 'worker:42',
        trail_name: 'main-42',
        template_reference_name: 'worker',
      });
      const res = await attest('generic', {
        attestation_name: 'signed',
        target_artifacts: ['backend', 'worker'],
      });
      assert.equal(res.status, 201);
      const trail = (await t.http.get('/api/v2/trails/acme/backend/main-42')).body;
      assert.deepEqual(
        trail.artifacts.map((a: { filename: string; attestations: Record<string, unknown> }) => [
          a.filename,
          'signed' in a.attestations,
        ]),
        [
          ['ghcr.io/acme/backend:42', true],
          ['worker:42', true],
        ],
      );
      const unknown = await attest('generic', { attestation_name: 'signed', target_artifacts: ['ghost'] });
      assert.deepEqual(
        [unknown.status, unknown.body.message, Object.keys(unknown.body.errors)],
        [404, 'Artifact not found in trail', ['target_artifacts[0]']],
      );
      const both = await attest('generic', {
        attestation_name: 'x',
        artifact_fingerprint: FP,
        target_artifacts: ['backend'],
      });
      assert.deepEqual([both.status, Object.keys(both.body.errors)], [400, ['target_artifacts']]);
    });

    it('follows the attestations made when the flow has no template', async () => {
      await t.http.put('/api/v2/flows/acme').send({ name: 'docs' });
      await t.http.put('/api/v2/trails/acme/docs').send({ name: 'v1' });
      const trailStatus = async () =>
        (await t.http.get('/api/v2/trails/acme/docs/v1')).body.compliance_status.status;
      assert.equal(await trailStatus(), 'INCOMPLETE');
      await t.http
        .post('/api/v2/attestations/acme/docs/trail/v1/generic')
        .send({ attestation_name: 'spellcheck' });
      assert.equal(await trailStatus(), 'COMPLIANT');
    });

    it('registers repositories from repo_info', async () => {
      const list = await t.http.get('/api/v2/repos/acme');
      assert.deepEqual(
        list.body.repos.map((r: { name: string; provider: string }) => [r.name, r.provider]),
        [['acme/backend', 'github']],
      );
      assert.deepEqual([list.body.page, list.body.total_pages, list.body.total_count], [1, 1, 1]);
      const one = await t.http.get(`/api/v2/repos/acme/${encodeURIComponent('acme/backend')}`);
      assert.deepEqual([one.status, one.body.url], [200, 'https://git.example/acme/backend']);
      assert.deepEqual((await t.http.get('/api/v2/repos/acme/ghost')).body.message, "Repo 'ghost' not found");
    });

    it('attests with a custom type: schema and jq rules decide; an archived type refuses new attestations', async () => {
      const type = await t.http.post('/api/v2/custom-attestation-types/acme').send({
        name: 'coverage',
        description: 'Line coverage',
        schema: { type: 'object', required: ['lines'], properties: { lines: { type: 'number' } } },
        jq_rules: ['.lines >= 80', '.lines <= 100'],
      });
      assert.equal(type.status, 201);
      assert.deepEqual(type.body.jq_rules, ['.lines >= 80', '.lines <= 100']);
      assert.equal(type.body.archived, false);
      // Create or update: the same definition changes nothing; another one is the next version.
      const same = await t.http.post('/api/v2/custom-attestation-types/acme').send({
        name: 'coverage',
        description: 'Line coverage',
        schema: { type: 'object', required: ['lines'], properties: { lines: { type: 'number' } } },
        jq_rules: ['.lines >= 80', '.lines <= 100'],
      });
      assert.deepEqual([same.status, same.body.versions.length], [201, 1]);
      const next = await t.http.post('/api/v2/custom-attestation-types/acme').send({
        name: 'coverage',
        description: 'Line coverage',
        schema: { type: 'object', required: ['lines'], properties: { lines: { type: 'number' } } },
        jq_rules: ['.lines >= 80', '.lines <= 100'],
        summary: [{ name: 'Lines', expression: '.lines' }],
      });
      assert.deepEqual(
        [next.status, next.body.versions.map((v: { version: number }) => v.version), next.body.summary],
        [201, [1, 2], [{ name: 'Lines', expression: '.lines' }]],
      );
      assert.deepEqual(next.body.versions[0].summary, null);
      const v1 = await t.http.get('/api/v2/custom-attestation-types/acme/coverage?version=1');
      assert.deepEqual(
        [v1.status, v1.body.org, v1.body.versions.length, v1.body.versions[0].version],
        [200, 'acme', 1, 1],
      );
      const v9 = await t.http.get('/api/v2/custom-attestation-types/acme/coverage?version=9');
      assert.deepEqual(
        [v9.status, v9.body.message],
        [404, "version 9 does not exist for custom attestation type 'coverage'"],
      );
      const badSummary = await t.http
        .post('/api/v2/custom-attestation-types/acme')
        .send({ name: 'coverage', schema: {}, summary: [{ name: 'Lines', expression: '.a |||' }] });
      assert.deepEqual(
        [badSummary.status, Object.keys(badSummary.body.errors)],
        [400, ['summary[0].expression']],
      );
      const badType = await t.http
        .post('/api/v2/custom-attestation-types/acme')
        .send({ name: 'broken', schema: { type: 'nonsense' }, jq_rules: ['.a |||'] });
      assert.deepEqual(
        [badType.status, Object.keys(badType.body.errors).sort()],
        [400, ['jq_rules[0]', 'schema']],
      );

      const custom = (data: unknown) =>
        attest('custom', { attestation_name: 'coverage', type_name: 'coverage', attestation_data: data });
      const good = await custom({ lines: 91.5 });
      assert.deepEqual([good.status, good.body.compliant, good.body.evidence.type_version], [201, true, 2]);
      const low = await custom({ lines: 42 });
      assert.equal(low.body.compliant, false);
      assert.deepEqual(
        low.body.evidence.rule_results.map((r: { result: unknown }) => r.result),
        [false, true],
      );
      const wrong = await custom({ lines: 'lots' });
      assert.equal(wrong.body.compliant, false);
      assert.equal(wrong.body.evidence.schema_errors.length, 1);
      const unknown = await attest('custom', {
        attestation_name: 'x',
        type_name: 'nope',
        attestation_data: {},
      });
      assert.deepEqual(
        [unknown.status, unknown.body.message],
        [404, "Custom attestation type 'nope' does not exist for org 'acme'"],
      );

      const archived = await t.http.put('/api/v2/custom-attestation-types/acme/coverage/archive');
      assert.equal(archived.status, 200);
      assert.match(archived.headers['content-type'], /^application\/json/);
      assert.equal(archived.body, 'Custom attestation type archived');
      assert.equal((await t.http.put('/api/v2/custom-attestation-types/acme/coverage/archive')).status, 200);
      const refused = await custom({ lines: 95 });
      assert.deepEqual(
        [refused.status, refused.body.message],
        [400, "Custom attestation type 'coverage' is archived"],
      );
      const still = await t.http.get('/api/v2/custom-attestation-types/acme/coverage');
      assert.deepEqual([still.status, still.body.archived], [200, true]);
      const missing = await t.http.put('/api/v2/custom-attestation-types/acme/ghost/archive');
      assert.deepEqual(
        [missing.status, missing.body.message],
        [404, "Custom attestation type 'ghost' does not exist for org 'acme'"],
      );
    });

    it('answers each validation error with the spec body', async () => {
      const bad = async (
        res: { status: number; body: { message: string; errors: Record<string, string> } },
        fields: string[],
      ) => {
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.message, 'Input payload validation failed');
        assert.deepEqual(Object.keys(res.body.errors).sort(), fields.sort());
      };
      await bad(await t.http.put('/api/v2/flows/acme').send({ name: '.hidden' }), ['name']);
      await bad(
        await t.http
          .put('/api/v2/flows/acme')
          .send({ name: 'f', template: { trail: { attestations: [{ name: 'x' }] } } }),
        ['template.trail.attestations[0].type'],
      );
      await bad(
        await t.http
          .put('/api/v2/trails/acme/backend')
          .send({ name: 'main 43', git_commit_info: { message: 'no sha' } }),
        ['name', 'git_commit_info.sha1'],
      );
      await bad(
        await t.http
          .post('/api/v2/artifacts/acme/backend')
          .send({ fingerprint: 'abc', filename: 'x', trail_name: 'main-42' }),
        ['fingerprint'],
      );
      await bad(await attest('junit', { junit_results: [{ name: 's', tests: 1, failures: 0 }] }), [
        'attestation_name',
        'junit_results[0].errors',
      ]);
      // No type is named so: the path is an attestation's to read (GET), not one to post to.
      const teleport = await attest('teleport', { attestation_name: 'x' });
      assert.deepEqual([teleport.status, teleport.headers.allow], [405, 'GET, HEAD']);
      await bad(await attest('generic', { attestation_name: 'x', is_compliant: 'yes' }), ['is_compliant']);
    });

    it('serves the files attached to a trail’s attestations, through that trail only, as they were at an instant', async () => {
      await t.http.put('/api/v2/trails/acme/backend').send({ name: 'files-1' }).expect(201);
      const sent = await t.http
        .post('/api/v2/attestations/acme/backend/trail/files-1/generic')
        .field('data_json', JSON.stringify({ attestation_name: 'notes' }))
        .attach('attachment_file', Buffer.from('release notes\n'), 'notes v1.txt');
      assert.equal(sent.status, 201, sent.text);
      const trail = (await t.http.get('/api/v2/trails/acme/backend/files-1').expect(200)).body;
      const [file] = trail.attestations.notes.attachments as {
        filename: string;
        sha256: string;
        size: number;
      }[];
      const path = `/api/v2/trails/acme/backend/files-1/attachments/${file.sha256}`;
      const got = await t.http
        .get(path)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      assert.equal(got.status, 200);
      assert.equal((got.body as Buffer).toString(), 'release notes\n');
      assert.equal(got.headers['content-type'], 'application/octet-stream');
      assert.equal(got.headers['content-disposition'], 'attachment; filename="notes_v1.txt"');
      const before = trail.created_at as number;
      const notYet = await t.http.get(path).query({ at: before });
      assert.deepEqual(
        [notYet.status, notYet.body.message],
        [404, 'Attachment not found'],
        'not attached then',
      );
      const elsewhere = await t.http.get(`/api/v2/trails/acme/backend/main-42/attachments/${file.sha256}`);
      assert.deepEqual(
        [elsewhere.status, elsewhere.body.message],
        [404, 'Attachment not found'],
        'not that trail’s',
      );
      const unknown = await t.http.get(`/api/v2/trails/acme/backend/files-1/attachments/${'0'.repeat(64)}`);
      assert.equal(unknown.status, 404);
    });

    it('links every artifact, trail, environment and snapshot to its page in the workspace', async () => {
      const origin = `http://127.0.0.1`;
      const trail = await t.http.get('/api/v2/trails/acme/backend/main-42').set('Host', '127.0.0.1');
      assert.equal(trail.body.html_url, `${origin}/ui/acme/flows/backend/trails/main-42`);
      const then = trail.body.created_at as number;
      const past = await t.http
        .get('/api/v2/trails/acme/backend/main-42')
        .query({ at: then })
        .set('Host', '127.0.0.1');
      const pinned = new URL(past.body.html_url as string);
      assert.equal(pinned.pathname, '/ui/acme/flows/backend/trails/main-42');
      assert.match(pinned.searchParams.get('at')!, /^\d{4}-\d\d-\d\dT[\d:]+\.\d{6}Z$/, 'the instant read');
      const artifact = await t.http.get(`/api/v2/artifacts/acme/backend/${FP}`).set('Host', '127.0.0.1');
      assert.equal(artifact.body.html_url, `${origin}/ui/acme/flows/backend/artifacts/${FP}`);
      await t.http.put('/api/v2/environments/acme').send({ name: 'edge.1', type: 'K8S' }).expect(201);
      const env = await t.http.get('/api/v2/environments/acme/edge.1').set('Host', '127.0.0.1');
      assert.equal(env.body.html_url, `${origin}/ui/acme/environments/edge.1`);
      const listed = (await t.http.get('/api/v2/environments/acme').set('Host', '127.0.0.1')).body as {
        name: string;
        html_url: string;
      }[];
      assert.equal(listed.find((e) => e.name === 'edge.1')?.html_url, env.body.html_url);
      const pod = { creationTimestamp: 1_790_000_000, namespace: 'edge', podName: 'backend-1' };
      await t.http
        .put('/api/v2/environments/acme/edge.1/report/K8S')
        .send({ artifacts: [{ ...pod, digests: { 'backend:1': `sha256:${FP}` } }] })
        .expect(201);
      const snapshot = await t.http
        .get('/api/v2/environments/acme/edge.1/snapshots/-1')
        .set('Host', '127.0.0.1');
      assert.match(
        snapshot.body.html_url,
        /^http:\/\/127\.0\.0\.1\/ui\/acme\/environments\/edge\.1\?at=\d{4}-/,
      );
    });

    it('answers 404 for unknown flows, trails and artifacts', async () => {
      const notFound = async (res: { status: number; body: { message: string } }, message: string) =>
        assert.deepEqual([res.status, res.body.message], [404, message]);
      await notFound(await t.http.get('/api/v2/flows/acme/ghost'), 'Flow not found');
      await notFound(await t.http.put('/api/v2/trails/acme/ghost').send({ name: 't' }), 'Flow not found');
      await notFound(await t.http.get('/api/v2/trails/acme/backend/ghost'), 'Trail not found');
      // An artifact reported to a trail not begun begins it (test/kosli-trails.e2e.test.ts).
      await notFound(
        await t.http
          .post('/api/v2/attestations/acme/backend/trail/ghost/generic')
          .send({ attestation_name: 'x' }),
        'Trail not found',
      );
      await notFound(
        await attest('generic', { attestation_name: 'x', artifact_fingerprint: 'f'.repeat(64) }),
        `Artifact with fingerprint ${'f'.repeat(64)} does not exist in trail "main-42" of flow "backend" belonging to organization "acme"`,
      );
      await notFound(
        await t.http.get(`/api/v2/artifacts/acme/backend/${'e'.repeat(64)}`),
        'Artifact not found',
      );
    });
  });
}
