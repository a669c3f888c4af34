import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { Mode, startApp, TestApp } from './support/app';
import { eventually } from './support/processes';

const A = 'a1'.repeat(32);
const B = 'b2'.repeat(32);
const C = 'c3'.repeat(32);
const REPO = { name: 'acme/shop', url: 'https://git.example/acme/shop', provider: 'github' };
const pod = (image: string, fingerprint: string) => ({
  creationTimestamp: 1_790_000_000,
  digests: { [image]: `sha256:${fingerprint}` },
  namespace: 'shop',
  podName: `${image.replace(/\W/g, '-')}-1`,
});

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`provenance: environments and trails tell each other (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode });
      await t.http.put('/api/v2/flows/acme').send({ name: 'shop' });
      for (const [trail, fingerprint, sha1, image] of [
        ['build-1', A, 'aaa111', 'shop:1'],
        ['build-2', B, 'bbb222', 'shop:2'],
      ]) {
        await t.http
          .put('/api/v2/trails/acme/shop')
          .send({ name: trail, git_commit_info: { sha1 }, repo_info: REPO });
        const res = await t.http.post('/api/v2/artifacts/acme/shop').send({
          fingerprint,
          filename: image,
          trail_name: trail,
          git_commit_info: { sha1, author: 'ada' },
          repo_info: REPO,
        });
        assert.equal(res.status, 201);
      }
      await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' });
      assert.equal(
        (
          await t.http
            .put('/api/v2/environments/acme/prod/report/K8S')
            .send({ artifacts: [pod('shop:1', A), pod('cache:9', C)] })
        ).status,
        201,
      );
      assert.equal(
        (
          await t.http
            .put('/api/v2/environments/acme/prod/report/K8S')
            .send({ artifacts: [pod('shop:2', B), pod('cache:9', C)] })
        ).status,
        201,
      );
    });
    after(async () => t.close());

    const trailEvents = async (trail: string) =>
      (await t.http.get(`/api/v2/trails/acme/shop/${trail}`)).body.events.map(
        (e: { type: string }) => e.type,
      ) as string[];

    it("records on each trail's own stream where its artifact started and stopped running", async () => {
      await eventually(
        () => trailEvents('build-1'),
        (e) => e.includes('artifact_stopped_running'),
      );
      assert.deepEqual(await trailEvents('build-1'), [
        'trail_reported',
        'artifact_reported',
        'artifact_started_running',
        'artifact_stopped_running',
      ]);
      const a = (await t.http.get(`/api/v2/artifacts/acme/shop/${A}`)).body;
      assert.deepEqual(a.running, []);
      assert.deepEqual(
        a.exited.map((x: { environment: string; snapshot_index: number }) => [
          x.environment,
          x.snapshot_index,
        ]),
        [['prod', 2]],
      );
      await eventually(
        () => trailEvents('build-2'),
        (e) => e.includes('artifact_started_running'),
      );
      const b = (await t.http.get(`/api/v2/artifacts/acme/shop/${B}`)).body;
      assert.deepEqual(
        b.running.map((x: { environment: string; snapshot_index: number }) => [
          x.environment,
          x.snapshot_index,
        ]),
        [['prod', 2]],
      );
    });

    it('gives deployments their commit, the replaced commit and a compare link', async () => {
      const deployments = async () =>
        (await t.http.get('/api/v2/environments/acme/prod/deployments')).body.deployments;
      const list = await eventually(deployments, (d) =>
        d.some((x: { diff_url: string | null }) => x.diff_url),
      );
      const shop2 = list.find((d: { artifact_name: string }) => d.artifact_name === 'shop:2');
      assert.equal(shop2.commit.sha1, 'bbb222');
      assert.equal(shop2.replaced_artifact.commit.sha1, 'aaa111');
      assert.equal(shop2.diff_url, 'https://git.example/acme/shop/compare/aaa111...bbb222');
      const cache = list.find((d: { artifact_name: string }) => d.artifact_name === 'cache:9');
      assert.deepEqual([cache.commit, cache.diff_url], [null, null], 'no provenance, no commit');
    });

    it('records `changed` when a running artifact’s trail turns compliant and a snapshot is made', async () => {
      await eventually(
        () => trailEvents('build-2'),
        (e) => e.includes('artifact_started_running'),
      );
      const ok = await t.http
        .post('/api/v2/attestations/acme/shop/trail/build-2/generic')
        .send({ attestation_name: 'smoke' });
      assert.equal(ok.status, 201);
      const res = await t.http
        .put('/api/v2/environments/acme/prod/report/K8S')
        .send({ artifacts: [pod('shop:2', B), pod('cache:9', C), pod('queue:3', 'd4'.repeat(32))] });
      assert.equal(res.status, 201);
      const changed = (await t.http.get('/api/v2/environments/acme/prod/events?event_types=changed')).body;
      assert.deepEqual(
        changed.map((r: { artifact_name: string; snapshot_index: number; flow_names: string[] }) => [
          r.artifact_name,
          r.snapshot_index,
          r.flow_names,
        ]),
        [['shop:2', 3, ['shop']]],
      );
      const snapshot = (await t.http.get('/api/v2/environments/acme/prod/snapshots/3')).body;
      const shop2 = snapshot.artifacts.find((a: { artifact_name: string }) => a.artifact_name === 'shop:2');
      assert.deepEqual([shop2.compliant, shop2.provenance], [true, [{ flow: 'shop', trail: 'build-2' }]]);
    });

    it('filters the audit log by flow, with `no provenance` for artifacts no trail reported', async () => {
      const rows = async (q: string) =>
        parse((await t.http.get(`/api/v2/environments/acme/prod/auditlog?${q}`)).text, {
          columns: true,
        }) as Record<string, string>[];
      await eventually(
        () => rows('flow_names=shop'),
        (r) => r.length === 4 && r.every((row) => row.event_type === 'changed' || row.commit),
      );
      assert.deepEqual(
        (await rows('flow_names=shop')).map(
          (r) => `${r.event_type} ${r.artifact_name} ${r.commit} ${r.trail_names}`,
        ),
        [
          'started shop:1 aaa111 build-1',
          'started shop:2 bbb222 build-2',
          'exited shop:1 aaa111 build-1',
          'changed shop:2  build-2',
        ],
      );
      assert.deepEqual(
        (await rows('flow_names=no provenance')).map((r) => r.artifact_name),
        ['cache:9', 'queue:3'],
      );
      assert.deepEqual(
        (await rows('repo_names=acme/shop&event_types=exited')).map((r) => r.artifact_name),
        ['shop:1'],
      );
    });
  });
}
