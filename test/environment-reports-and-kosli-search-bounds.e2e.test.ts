import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { modeEnv, startApp, TestApp } from './support/app';

/**
 * Issue 49: an environment report or a Kosli search costs work in the size
 * of what it sends or matches, never in (report × the organization's
 * artifacts): the report's digests are counted from its text as it arrives
 * and refused past their limits, the assessment looks each fingerprint up,
 * and a search shows at most `DES_KOSLI_SEARCH_ARTIFACTS` artifacts.
 * Timings are printed (`# …`), never asserted; the per-document work is
 * counted in running-assessment.spec.ts.
 */
const LIMITS = { digestsPerPod: 64, digests: 3000, searchArtifacts: 25 };
const SHA = 'd0c5'.repeat(10);
const fingerprint = (i: number) => `e${i.toString(16).padStart(63, '0')}`;
const unknown = (i: number) => `f${i.toString(16).padStart(63, '0')}`;

const pod = (i: number, digests: Record<string, string>) => ({
  creationTimestamp: 1_790_000_000 + i,
  digests,
  namespace: 'shop',
  podName: `shop-${i}`,
});
/** One pod naming `n` images. */
const crowdedPod = (n: number) =>
  pod(0, Object.fromEntries(Array.from({ length: n }, (_, i) => [`img-${i}:1`, `sha256:${unknown(i)}`])));

describe('environment reports and Kosli search: bounded in the tenant’s data size (embedded mode)', () => {
  let t: TestApp;
  let seeded = 0;
  before(async () => {
    t = await startApp({
      mode: 'embedded',
      env: await modeEnv('embedded', {
        DES_MAX_REPORT_DIGESTS_PER_POD: String(LIMITS.digestsPerPod),
        DES_MAX_REPORT_DIGESTS: String(LIMITS.digests),
        DES_KOSLI_SEARCH_ARTIFACTS: String(LIMITS.searchArtifacts),
        // Large enough for the measured reports: the digests' limits are what is tested.
        DES_MAX_APPEND_SIZE: String(8 * 1024 * 1024),
      }),
    });
    await t.http.put('/api/v2/flows/acme').send({ name: 'shop' }).expect(201);
    await t.http.put('/api/v2/trails/acme/shop').send({ name: 'big' }).expect(201);
    for (const [name, type] of [
      ['prod', 'K8S'],
      ['servers', 'server'],
      ['tasks', 'ECS'],
    ])
      await t.http.put('/api/v2/environments/acme').send({ name, type }).expect(201);
  });
  after(async () => t?.close());

  /** The trail `big` reports artifacts up to `n` in all, every one of commit SHA. */
  async function seedTo(n: number) {
    for (; seeded < n; seeded++) {
      const res = await t.http.post('/api/v2/artifacts/acme/shop').send({
        fingerprint: fingerprint(seeded),
        filename: `shop:${seeded}`,
        trail_name: 'big',
        git_commit: SHA,
      });
      assert.equal(res.status, 201, res.text);
    }
  }

  const report = (env: string, type: string, body: string | object) =>
    t.http
      .put(`/api/v2/environments/acme/${env}/report/${type}`)
      .set('Content-Type', 'application/json')
      .send(body);

  const nothingRecorded = async (env: string) =>
    assert.equal((await t.http.get(`/api/v2/environments/acme/${env}/snapshots/-1`)).status, 404);

  it('a pod naming more images than a pod may: 400 naming the pod, from its text, nothing recorded', async () => {
    const over = await report('prod', 'K8S', {
      artifacts: [pod(1, { 'a:1': `sha256:${unknown(1)}` }), crowdedPod(65)],
    });
    assert.equal(over.status, 400, over.text);
    assert.deepEqual(over.body, {
      message: 'Invalid report data',
      errors: { 'artifacts[1].digests': `must NOT name more than ${LIMITS.digestsPerPod} images` },
    });
    // The report: one pod, 100,000 digests (8.5 MB), held the service 117 s for a 413.
    const text = JSON.stringify({ artifacts: [crowdedPod(100_000)] });
    const started = performance.now();
    const huge = await report('prod', 'K8S', text);
    console.log(
      `# one pod of 100,000 digests (${(text.length / 1e6).toFixed(1)} MB): ${huge.status} in ${Math.round(performance.now() - started)} ms`,
    );
    assert.equal(huge.status, 400, huge.text);
    assert.deepEqual(Object.keys(huge.body.errors), ['artifacts[0].digests']);
    await nothingRecorded('prod');
  });

  it('more image digests in all than a report may name: 413 naming the limit, nothing recorded', async () => {
    const pods = Array.from({ length: LIMITS.digests / 2 + 1 }, (_, i) =>
      pod(i, { [`a-${i}:1`]: `sha256:${unknown(2 * i)}`, [`b-${i}:1`]: `sha256:${unknown(2 * i + 1)}` }),
    );
    const over = await report('prod', 'K8S', { artifacts: pods });
    assert.equal(over.status, 413, over.text);
    assert.deepEqual(over.body, {
      message: `Report too large: a report may name at most ${LIMITS.digests} image digests in all`,
      errors: { artifacts: `must NOT name more than ${LIMITS.digests} image digests in all` },
    });
    await nothingRecorded('prod');
  });

  it('every report type has the same caps: a unit naming too many images, too many in all, too many units', async () => {
    const server = await report('servers', 'server', {
      artifacts: [{ creationTimestamp: 1, digests: crowdedPod(65).digests }],
    });
    assert.equal(server.status, 400, server.text);
    assert.deepEqual(server.body.errors, {
      'artifacts[0].digests': `must NOT name more than ${LIMITS.digestsPerPod} images`,
    });
    const tasks = Array.from({ length: LIMITS.digests / 2 + 1 }, (_, i) => ({
      taskArn: `arn:task/${i}`,
      creationTimestamp: 1,
      digests: { [`a-${i}`]: unknown(2 * i), [`b-${i}`]: '' },
    }));
    const ecs = await report('tasks', 'ECS', { artifacts: tasks });
    assert.equal(ecs.status, 413, ecs.text);
    const units = Array.from({ length: 5001 }, () => ({ creationTimestamp: 1, digests: {} }));
    const many = await report('servers', 'server', { artifacts: units });
    assert.equal(many.status, 400, many.text);
    assert.deepEqual(many.body, {
      message: 'Invalid report data',
      errors: { artifacts: 'must NOT have more than 5000 items' },
    });
    await nothingRecorded('servers');
    await nothingRecorded('tasks');
  });

  /** A report running the org's `n` artifacts and as many unknown ones; its time and the snapshot's provenance. */
  async function measureReport(n: number) {
    const pods = Array.from({ length: 2 * n }, (_, i) =>
      pod(i, { [`shop:${i}`]: `sha256:${i < n ? fingerprint(i) : unknown(i)}` }),
    );
    // From another running set: this report makes a snapshot.
    await report('prod', 'K8S', { artifacts: [pod(0, { 'x:1': `sha256:${unknown(99_999)}` })] }).expect(201);
    const started = performance.now();
    const res = await report('prod', 'K8S', { artifacts: pods });
    const ms = performance.now() - started;
    assert.equal(res.status, 201, res.text);
    const snapshot = (await t.http.get('/api/v2/environments/acme/prod/snapshots/-1').expect(200)).body as {
      artifacts: { fingerprint: string; provenance?: unknown }[];
    };
    assert.equal(snapshot.artifacts.length, 2 * n);
    assert.equal(
      snapshot.artifacts.filter((a) => a.provenance).length,
      n,
      'the org’s artifacts traced to their trail',
    );
    return ms;
  }

  /** A search by the commit all the trail's artifacts share: its time, the answer bounded, the counts whole. */
  async function measureSearch(n: number) {
    const started = performance.now();
    const res = await t.http.get(`/api/v2/search/acme/sha/${SHA.slice(0, 8)}`).expect(200);
    const ms = performance.now() - started;
    assert.equal(res.body.resolved_to.type, 'commit');
    assert.equal(res.body.resolved_to.commits.count, 1);
    assert.equal(res.body.artifacts.length, Math.min(n, LIMITS.searchArtifacts), 'at most the limit shown');
    const created = (res.body.artifacts as { created_at: number }[]).map((a) => a.created_at);
    assert.deepEqual(
      created,
      [...created].sort((a, b) => b - a),
      'the newest first',
    );
    for (const a of res.body.artifacts as { trail_name: string; git_commit: string; state: string }[]) {
      assert.equal(a.trail_name, 'big');
      assert.equal(a.git_commit, SHA);
    }
    return ms;
  }

  it('a report and a search over one trail of 4× the artifacts: each answered, the figures printed', async () => {
    const figures: Record<number, { report: number; search: number }> = {};
    for (const n of [200, 800]) {
      await seedTo(n);
      // Once unmeasured: the first of a size builds what later ones find built (the store's indexes).
      await measureReport(n);
      figures[n] = { report: await measureReport(n), search: await measureSearch(n) };
    }
    const [one, four] = [figures[200], figures[800]];
    console.log(
      `# K8S report running the org's n artifacts and n unknown: n=200 ${Math.round(one.report)} ms, n=800 ${Math.round(four.report)} ms (${(four.report / one.report).toFixed(1)}×)`,
    );
    console.log(
      `# Kosli search matching a trail's n artifacts: n=200 ${Math.round(one.search)} ms, n=800 ${Math.round(four.search)} ms (${(four.search / one.search).toFixed(1)}×)`,
    );
  });
});
