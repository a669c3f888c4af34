import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AttachmentStore } from '#des/platform';
import { Mode, startApp, TestApp } from './support/app';
import { replay as replayOne } from './support/kosli-replay';

/**
 * The Kosli CLI's core workflow against this service: each command's requests
 * as the CLI sent them (recorded byte for byte with test/kosli-cli/record.mjs,
 * multipart boundaries and all), replayed in order, then our answer read as
 * the CLI reads it and the effect checked.
 */
const FINGERPRINT = '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03';

/**
 * `kosli snapshot k8s` needs a cluster, so its request is built as its source
 * builds it (internal/kube: PUT …/report/K8S, one entry per pod with its owners).
 */
const k8sReport = (image: string, digest: string) =>
  JSON.stringify({
    artifacts: [
      {
        podName: 'shop-5d8-x2x',
        namespace: 'prod',
        digests: { [image]: `sha256:${digest}` },
        creationTimestamp: 1795390000,
        owners: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: 'shop-5d8',
            uid: '0b6c1c7e-8d0f-4a55-9b9e-1f3c2d4e5f60',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
    ],
  });

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`the Kosli CLI's workflow, replayed (${mode} mode)`, () => {
    let t: TestApp;

    const replay = (command: string) => replayOne(t.http, command);

    const trail = async () => (await t.http.get('/api/v2/trails/demo/shop/t1').expect(200)).body;

    before(async () => {
      t = await startApp({ mode, org: 'demo' });
    });
    after(async () => t.close());

    it('create environment: 201, and the environment is there as described', async () => {
      const res = await replay('create-environment');
      assert.equal(res.status, 201, res.text);
      const env = (await t.http.get('/api/v2/environments/demo/prod').expect(200)).body;
      assert.equal(env.type, 'K8S');
      assert.equal(env.description, 'Production cluster');
    });

    it('snapshot k8s, twice (a new image the second time): two snapshots, owners accepted', async () => {
      for (const [i, image] of ['shop:1', 'shop:2'].entries()) {
        const res = await t.http
          .put('/api/v2/environments/demo/prod/report/K8S')
          .set('Content-Type', 'application/json; charset=utf-8')
          .send(k8sReport(image, i === 0 ? FINGERPRINT : 'f'.repeat(64)));
        assert.equal(res.status, 201, res.text);
      }
      const latest = (await t.http.get('/api/v2/environments/demo/prod/snapshots/-1').expect(200)).body;
      assert.equal(latest.index, 2);
    });

    it('create flow --template-file: the YAML template (version 1, artifacts under trail) is the flow’s', async () => {
      const res = await replay('create-flow');
      assert.equal(res.status, 201, res.text);
      const flow = (await t.http.get('/api/v2/flows/demo/shop').expect(200)).body;
      assert.equal(flow.description, 'the shop');
      assert.deepEqual(flow.template, {
        trail: { attestations: [{ name: 'tests', type: 'junit' }] },
        artifacts: [{ name: 'app', attestations: [{ name: 'scan', type: 'snyk' }] }],
      });
    });

    it('begin trail (multipart data_json with git_commit_info): the trail, with its commit', async () => {
      const res = await replay('begin-trail');
      assert.equal(res.status, 201, res.text);
      const t1 = await trail();
      assert.equal(t1.description, 'release 1');
      assert.equal(t1.git_commit_info.message, 'first commit');
      assert.equal(t1.compliance_state, 'INCOMPLETE');
    });

    it('attest artifact (repo_url and the rest the CLI sends): the artifact on the trail', async () => {
      const res = await replay('attest-artifact');
      assert.equal(res.status, 201, res.text);
      const artifact = (await t.http.get(`/api/v2/artifacts/demo/shop/${FINGERPRINT}`).expect(200)).body;
      assert.equal(artifact.filename, 'app.bin');
      assert.equal(artifact.repo_url, 'https://github.com/acme/shop');
      assert.equal((await trail()).artifacts[0].template_reference_name, 'app');
    });

    it('attest generic with an attachment: compliant, the file kept by its SHA-256 and listed', async () => {
      const res = await replay('attest-generic');
      assert.equal(res.status, 201, res.text);
      const review = (await trail()).attestations.review;
      assert.equal(review.compliant, true);
      assert.equal(review.git_commit_info.sha1.length, 40);
      const sha256 = createHash('sha256').update('hello\n').digest('hex');
      assert.deepEqual(review.attachments, [{ filename: 'notes.txt', sha256, size: 6 }]);
      const kept = await t.app.get(AttachmentStore).get(sha256);
      assert.equal(kept?.toString(), 'hello\n');
    });

    it('attest junit (results as the CLI sums them, with `total`): compliant', async () => {
      const res = await replay('attest-junit');
      assert.equal(res.status, 201, res.text);
      const tests = (await trail()).attestations.tests;
      assert.equal(tests.compliant, true);
      assert.equal(tests.evidence.junit_results[0].total, 3);
      assert.equal(tests.evidence.junit_results[0].skipped, 1);
    });

    it('attest snyk (SARIF counted by the CLI) on the artifact: compliant, and the trail with it', async () => {
      const res = await replay('attest-snyk');
      assert.equal(res.status, 201, res.text);
      const t1 = await trail();
      assert.equal(t1.artifacts[0].attestations.scan.compliant, true);
      assert.equal(t1.compliance_state, 'COMPLIANT');
    });

    it('create attestation-type (data_json with a jq evaluator, the schema as type_schema): the type, with versions', async () => {
      const res = await replay('create-attestation-type');
      assert.equal(res.status, 201, res.text);
      const type = (await t.http.get('/api/v2/custom-attestation-types/demo/coverage').expect(200)).body;
      assert.deepEqual(type.jq_rules, ['.coverage > 80']);
      assert.deepEqual(type.schema.required, ['coverage']);
      assert.equal(type.versions.length, 1);
      assert.deepEqual(type.versions[0].evaluator, { content_type: 'jq', rules: ['.coverage > 80'] });
    });

    it('attest custom: judged by the type’s schema and jq rules', async () => {
      const res = await replay('attest-custom');
      assert.equal(res.status, 201, res.text);
      assert.equal((await trail()).attestations.cov.compliant, true);
    });

    it('get attestation-type: name and versions as the CLI prints them', async () => {
      const res = await replay('get-attestation-type');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, 'coverage');
      assert.equal(res.body.versions[0].version, 1);
    });

    it('create attestation-type without a schema, then archive it (a JSON null body): archived', async () => {
      assert.equal((await replay('create-attestation-type-old')).status, 201);
      const res = await replay('archive-attestation-type');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body, 'Custom attestation type archived');
      const type = (await t.http.get('/api/v2/custom-attestation-types/demo/old').expect(200)).body;
      assert.equal(type.archived, true);
    });

    it('list trails --flow: a page of {name, description, compliance_state}', async () => {
      const res = await replay('list-trails');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.data.map((d: Record<string, unknown>) => [d.name, d.description, d.compliance_state]),
        [['t1', 'release 1', 'COMPLIANT']],
      );
      assert.deepEqual(res.body.pagination, { page: 1, page_count: 1, total: 1, per_page: 20 });
    });

    it('get trail: the trail with the count of its events', async () => {
      const res = await replay('get-trail');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, 't1');
      assert.equal(res.body.event_count, 6);
    });

    it('list environments and get environment', async () => {
      const list = await replay('list-environments');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.body.map((e: Record<string, unknown>) => e.name),
        ['prod'],
      );
      const one = await replay('get-environment');
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.name, 'prod');
    });

    it('log environment (page, per_page, interval, reverse): newest first, with the fields the CLI reads', async () => {
      const res = await replay('log-environment');
      assert.equal(res.status, 200, res.text);
      const rows = res.body as Record<string, unknown>[];
      assert.deepEqual(
        rows.map((r) => [r.snapshot_index, r.event_type, r.artifact_name]),
        [
          [2, 'exited', 'shop:1'],
          [2, 'started', 'shop:2'],
          [1, 'started', 'shop:1'],
        ],
      );
      for (const row of rows) {
        assert.equal(typeof row.sha256, 'string');
        assert.equal(typeof row.description, 'string');
        assert.equal(typeof row.reported_at, 'number');
        assert.equal(typeof row.pipeline, 'string');
      }
      const between = await t.http.get(
        '/api/v2/environments/demo/prod/events?interval=1..1&page=1&per_page=15',
      );
      assert.deepEqual(
        between.body.map((r: Record<string, unknown>) => r.snapshot_index),
        [1],
      );
      // `--start`/`--end`: a snapshot number, one before the latest, or an instant (NOW, a time ago).
      const indexes = async (query: string) =>
        (await t.http.get(`/api/v2/environments/demo/prod/events?${query}`).expect(200)).body.map(
          (r: Record<string, unknown>) => r.snapshot_index,
        );
      assert.deepEqual(await indexes('start=2&page=1&per_page=15'), [2, 2]);
      assert.deepEqual(await indexes('end=~1&page=1&per_page=15'), [1]);
      assert.deepEqual(await indexes('start=1hour&end=NOW&page=1&per_page=15'), [2, 2, 1]);
      assert.deepEqual(await indexes('end=1hour&page=1&per_page=15'), []);
      const bad = await t.http.get('/api/v2/environments/demo/prod/events?start=yesterday').expect(400);
      assert.match(bad.body.errors.start, /^start is a snapshot number N/);
    });

    it('list snapshots: newest first, with from, to (0: in force), duration and compliant', async () => {
      const res = await replay('list-snapshots');
      assert.equal(res.status, 200, res.text);
      const [second, first] = res.body;
      assert.deepEqual([second.index, first.index], [2, 1]);
      assert.equal(second.to, 0);
      assert.equal(first.to, second.from);
      assert.equal(typeof first.duration, 'number');
      assert.equal(typeof first.compliant, 'boolean');
    });

    it('get snapshot (latest, #N and ~N): artifacts with pods by name, flow, commit and compliance', async () => {
      const latest = await replay('get-snapshot');
      assert.equal(latest.status, 200, latest.text);
      assert.equal(latest.body.index, 2);
      assert.equal(latest.body.artifacts[0].name, 'shop:2');
      assert.equal(latest.body.artifacts[0].flow_name, '');
      for (const command of ['get-snapshot-hash', 'get-snapshot-tilde']) {
        const res = await replay(command);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.index, 1);
        const [artifact] = res.body.artifacts;
        assert.equal(artifact.name, 'shop:1');
        // Snapshot 1 was made, and superseded, before any trail reported shop:1: as it ran then,
        // it had no provenance, so it was not compliant (the compliance model, docs/auditors.md).
        assert.deepEqual(
          [artifact.flow_name, artifact.trail_name, artifact.git_commit, artifact.compliant],
          ['', '', '', false],
        );
        assert.deepEqual(artifact.pods, {
          'shop-5d8-x2x': { namespace: 'prod', creationTimestamp: 1795390000, owners: [] },
        });
        assert.deepEqual(artifact.creationTimestamp, [1795390000]);
        assert.deepEqual(artifact.annotation, { type: 'started', was: 0, now: 1 });
      }
    });

    it('diff snapshots prod~1 prod: what left, what came', async () => {
      const res = await replay('diff-snapshots');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.snappish1.snapshot_id, 'prod#1');
      assert.deepEqual(
        res.body.snappish1.artifacts.map((a: Record<string, unknown>) => [
          a.name,
          a.flow,
          a.s1_instance_count,
        ]),
        [['shop:1', 'shop', 1]],
      );
      assert.deepEqual(
        res.body.snappish2.artifacts.map((a: Record<string, unknown>) => [a.name, a.s2_instance_count]),
        [['shop:2', 1]],
      );
      assert.deepEqual(res.body.changed.artifacts, []);
      assert.deepEqual(res.body['not-changed'].artifacts, []);
    });

    it('assert artifact --flow: compliant, with the statuses of its attestations', async () => {
      const res = await replay('assert-artifact');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.compliant, true);
      assert.equal(res.body.scope, 'flow');
      const [flow] = res.body.flows;
      assert.deepEqual([flow.flow, flow.trail], ['shop', 't1']);
      assert.deepEqual(
        flow.compliance_status.attestations_statuses
          .map((a: Record<string, unknown>) => a.attestation_name)
          .sort(),
        ['cov', 'review', 'scan', 'tests'],
      );
    });

    it('assert snapshot: the latest snapshot’s compliance (here not: shop:2 has no provenance)', async () => {
      const res = await replay('assert-snapshot');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.compliant, false);
    });

    it('search by a fingerprint prefix: resolved to the artifact', async () => {
      const res = await replay('search');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.resolved_to.type, 'fingerprint');
      assert.equal(res.body.resolved_to.full_match, FINGERPRINT);
      assert.deepEqual(
        res.body.artifacts.map((a: Record<string, unknown>) => [a.name, a.flow, a.compliance_state]),
        [['app.bin', 'shop', 'COMPLIANT']],
      );
    });

    it('list artifacts --flow, get artifact flow@fingerprint: the artifact, its state and trail', async () => {
      const list = await replay('list-artifacts');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.body.map((a: Record<string, unknown>) => [a.filename, a.fingerprint, a.state]),
        [['app.bin', FINGERPRINT, 'COMPLIANT']],
      );
      const one = await replay('get-artifact');
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(
        one.body.map((a: Record<string, unknown>) => [a.flow_name, a.trail_name, a.build_url]),
        [['shop', 't1', 'https://ci.example.com/1']],
      );
    });

    it('list repos: a page', async () => {
      const res = await replay('list-repos');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { repos: [], page: 1, per_page: 15, total_pages: 0, total_count: 0 });
    });

    it('create policy, then attach-policy: the environment judged by it', async () => {
      const created = await replay('create-policy');
      assert.equal(created.status, 201, created.text);
      const attached = await replay('attach-policy');
      assert.equal(attached.status, 200, attached.text);
      const env = (await t.http.get('/api/v2/environments/demo/prod').expect(200)).body;
      assert.deepEqual(env.policies, ['prod-policy']);
    });

    it('tag env: the tag on the environment', async () => {
      const res = await replay('tag-environment');
      assert.equal(res.status, 200, res.text);
      const env = (await t.http.get('/api/v2/environments/demo/prod').expect(200)).body;
      assert.deepEqual(env.tags, { stage: 'live' });
    });

    it('tag flow: the tag on the flow', async () => {
      const res = await replay('tag-flow');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await t.http.get('/api/v2/flows/demo/shop').expect(200)).body.tags, {
        team: 'payments',
      });
    });

    it('create service-account, create api-key, list api-keys: the new key works', async () => {
      assert.equal((await replay('create-service-account')).status, 201);
      // Sent again: a permanent conflict, so not 409 (which the CLI retries).
      const again = await replay('create-service-account');
      assert.deepEqual([again.status, again.body.message], [400, 'Service account already exists']);
      const created = await replay('create-api-key');
      assert.equal(created.status, 201, created.text);
      const listed = await replay('list-api-keys');
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.length, 1);
      assert.equal(listed.body[0].description, 'for ci');
      const withKey = await t.http
        .get('/api/v2/flows/demo')
        .set('Authorization', `Bearer ${created.body.key as string}`);
      assert.equal(withKey.status, 200);
    });

    it('status: /ready at the host root answers OK, the text the CLI prints, as the Kosli server does', async () => {
      const res = await replay('status');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.text, 'OK');
      assert.match(res.headers['content-type'], /^text\/plain/);
    });

    it('a JSON null body (sent by DELETE and archive) reads as no body; other bare values are still refused', async () => {
      const ok = await t.http
        .get('/api/v2/environments/demo')
        .set('Content-Type', 'application/json')
        .send('null');
      assert.equal(ok.status, 200, ok.text);
      const refused = await t.http
        .put('/api/v2/environments/demo')
        .set('Content-Type', 'application/json')
        .send('"prod"');
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, {
        message: 'Input payload validation failed',
        errors: { body: 'Malformed JSON' },
      });
    });
  });
}
