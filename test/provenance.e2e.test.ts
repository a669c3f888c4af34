import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { Mode, startApp, TestApp } from './support/app';
import { eventually } from './support/processes';
import { settle } from './support/time-travel';

const A = 'a1'.repeat(32);
const B = 'b2'.repeat(32);
const C = 'c3'.repeat(32);
const REPO = { name: 'acme/shop', url: 'https://git.example/acme/shop', provider: 'github' };
const commitOf = (sha1: string) => ({
  sha1,
  message: `release ${sha1}`,
  author: 'grace',
  branch: 'main',
  timestamp: 1_789_999_000,
  url: `https://git.example/acme/shop/commit/${sha1}`,
});
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
          .send({ name: trail, git_commit_info: commitOf(sha1), repo_info: REPO });
        // build-1's artifact names its commit only by sha1 and no repository: the trail's complete them.
        const res = await t.http.post('/api/v2/artifacts/acme/shop').send(
          trail === 'build-1'
            ? { fingerprint, filename: image, trail_name: trail, git_commit: sha1 }
            : {
                fingerprint,
                filename: image,
                trail_name: trail,
                git_commit_info: { sha1, author: 'ada' },
                repo_info: REPO,
              },
        );
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
      (await t.http.get(`/api/v2/trails/acme/shop/${trail}/events?per_page=100`)).body.events.map(
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

    it('gives deployments their full commit, compliance, repositories, the replaced commit and a compare link', async () => {
      const list = (await t.http.get('/api/v2/environments/acme/prod/deployments')).body.deployments;
      const shop2 = list.find((d: { artifact_name: string }) => d.artifact_name === 'shop:2');
      assert.deepEqual(
        shop2.commit,
        { ...commitOf('bbb222'), author: 'ada' },
        "the artifact's own fields win",
      );
      assert.deepEqual(shop2.replaced_artifact, {
        fingerprint: A,
        artifact_name: 'shop:1',
        snapshot_index: 1,
        commit: commitOf('aaa111'),
      });
      assert.equal(shop2.diff_url, 'https://git.example/acme/shop/compare/aaa111...bbb222');
      assert.deepEqual(shop2.repo_names, ['acme/shop']);
      assert.equal(shop2.compliance, false, 'its trail had no attestation when it started: INCOMPLETE');
      const shop1 = list.find((d: { artifact_name: string }) => d.artifact_name === 'shop:1');
      assert.deepEqual(shop1.commit, commitOf('aaa111'), "the trail's commit completes a bare sha1");
      assert.deepEqual(shop1.repo_names, ['acme/shop'], "the trail's repository");
      const cache = list.find((d: { artifact_name: string }) => d.artifact_name === 'cache:9');
      assert.deepEqual(
        [cache.commit, cache.diff_url, cache.compliance, cache.repo_names],
        [null, null, false, []],
        'no provenance: no commit, not compliant',
      );
      const environment = (await t.http.get('/api/v2/environments/acme/prod')).body;
      assert.equal(environment.state, false, 'an artifact without provenance runs');
    });

    it('records `changed` as soon as a running artifact’s trail turns compliant, not again at the next snapshot', async () => {
      await eventually(
        () => trailEvents('build-2'),
        (e) => e.includes('artifact_started_running'),
      );
      const ok = await t.http
        .post('/api/v2/attestations/acme/shop/trail/build-2/generic')
        .send({ attestation_name: 'smoke' });
      assert.equal(ok.status, 201);
      const changedRows = () =>
        t.http
          .get('/api/v2/environments/acme/prod/events?event_types=changed')
          .then((r) =>
            r.body.map((row: { artifact_name: string; snapshot_index: number; flow_names: string[] }) => [
              row.artifact_name,
              row.snapshot_index,
              row.flow_names,
            ]),
          );
      // The compliance reaction re-assesses what runs (snapshot 2) once the attestation is in.
      await eventually(changedRows, (rows) => rows.length > 0);
      assert.deepEqual(await changedRows(), [['shop:2', 2, ['shop']]]);
      const res = await t.http
        .put('/api/v2/environments/acme/prod/report/K8S')
        .send({ artifacts: [pod('shop:2', B), pod('cache:9', C), pod('queue:3', 'd4'.repeat(32))] });
      assert.equal(res.status, 201);
      // Every reaction (compliance among them) has passed snapshot 3.
      await settle(t);
      assert.deepEqual(
        await changedRows(),
        [['shop:2', 2, ['shop']]],
        'snapshot 3 found nothing more to change',
      );
      const snapshot = (await t.http.get('/api/v2/environments/acme/prod/snapshots/3')).body;
      const shop2 = snapshot.artifacts.find((a: { artifact_name: string }) => a.artifact_name === 'shop:2');
      assert.deepEqual(
        [
          shop2.compliant,
          shop2.compliant_when_made,
          shop2.provenance.trails.map((p: { flow: string; trail: string }) => [p.flow, p.trail]),
        ],
        [true, true, [['shop', 'build-2']]],
      );
      const cache = snapshot.artifacts.find((a: { artifact_name: string }) => a.artifact_name === 'cache:9');
      assert.deepEqual(
        [cache.compliant, cache.provenance],
        [false, null],
        'no provenance: every artifact has both keys',
      );
      assert.equal(snapshot.compliant, false, 'cache:9 and queue:3 have no provenance');
      // The Kosli CLI's view of the same snapshot follows the same model.
      const kosli = (await t.http.get('/api/v2/snapshots/acme/prod/3')).body;
      const kosliShop2 = kosli.artifacts.find((a: { name: string }) => a.name === 'shop:2');
      assert.deepEqual(
        [kosliShop2.flow_name, kosliShop2.trail_name, kosliShop2.git_commit, kosliShop2.compliant],
        ['shop', 'build-2', 'bbb222', true],
      );
      assert.equal(kosli.compliant, false);
    });

    it('a `changed` artifact keeps running, and its row names its commit, flow, trail and repository', async () => {
      const rows = (await t.http.get('/api/v2/environments/acme/prod/events?event_types=changed')).body;
      assert.deepEqual(
        rows.map((r: Record<string, unknown>) => [r.commit, r.trail_names, r.repo_names, r.compliant]),
        [['bbb222', ['build-2'], ['acme/shop'], true]],
      );
      // Once the provenance reaction has passed snapshot 3, nothing it did may have moved build-2.
      await settle(t);
      assert.deepEqual(await trailEvents('build-2'), [
        'trail_reported',
        'artifact_reported',
        'artifact_started_running',
        'attestation_reported',
      ]);
      const b = (await t.http.get(`/api/v2/artifacts/acme/shop/${B}`)).body;
      assert.deepEqual(
        [b.running.map((x: { snapshot_index: number }) => x.snapshot_index), b.exited],
        [[2], []],
      );
      const all = (await t.http.get('/api/v2/environments/acme/prod/events')).body as Record<
        string,
        unknown
      >[];
      assert.ok(
        all.every((row) => row.environment === 'prod' && typeof row.event_type === 'string'),
        'no stray row',
      );
    });

    it('filters the audit log by flow, with `no provenance` for artifacts no trail reported', async () => {
      const rows = async (q: string) =>
        parse((await t.http.get(`/api/v2/environments/acme/prod/auditlog?${q}`)).text, {
          columns: true,
        }) as Record<string, string>[];
      await eventually(
        () => rows('flow_names=shop'),
        (r) => r.length === 4,
      );
      assert.deepEqual(
        (await rows('flow_names=shop')).map(
          (r) => `${r.event_type} ${r.artifact_name} ${r.commit} ${r.trail_names}`,
        ),
        [
          'started shop:1 aaa111 build-1',
          'started shop:2 bbb222 build-2',
          'exited shop:1 aaa111 build-1',
          'changed shop:2 bbb222 build-2',
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
