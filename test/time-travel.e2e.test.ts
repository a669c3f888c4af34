import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';
import { comparable } from './support/time-travel';

const FP = '7e'.repeat(32);
const now = () => (performance.timeOrigin + performance.now()) / 1000;
const pause = () => new Promise((r) => setTimeout(r, 3));

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`time travel: GET /trails/...?at=T (${mode} mode)`, () => {
    let t: TestApp;
    const seen: { at: number; body: unknown }[] = [];
    let beforeEverything = 0;
    let afterFlow = 0;
    before(async () => {
      t = await startApp({ mode });
      beforeEverything = now();
      await pause();
      const steps: (() => Promise<{ status: number }>)[] = [
        () => t.http.put('/api/v2/flows/acme').send({ name: 'api' }),
        () => t.http.put('/api/v2/trails/acme/api').send({ name: 'rc-1', git_commit_info: { sha1: 'f00d' } }),
        () =>
          t.http.post('/api/v2/artifacts/acme/api').send({
            fingerprint: FP,
            filename: 'api:rc1',
            trail_name: 'rc-1',
            template_reference_name: 'api',
          }),
        () =>
          t.http.post('/api/v2/attestations/acme/api/trail/rc-1/junit').send({
            attestation_name: 'tests',
            junit_results: [{ name: 's', tests: 5, failures: 1, errors: 0 }],
          }),
        () =>
          t.http.put('/api/v2/flows/acme').send({
            name: 'api',
            template: {
              trail: {
                attestations: [
                  { name: 'tests', type: 'junit' },
                  { name: 'review', type: 'pull_request' },
                ],
              },
            },
          }),
        () =>
          t.http.post('/api/v2/attestations/acme/api/trail/rc-1/junit').send({
            attestation_name: 'tests',
            junit_results: [{ name: 's', tests: 5, failures: 0, errors: 0 }],
          }),
        () =>
          t.http
            .post('/api/v2/attestations/acme/api/trail/rc-1/pull_request')
            .send({ attestation_name: 'review', pull_requests: [{ url: 'https://git/pr/1' }] }),
        () =>
          t.http
            .put('/api/v2/trails/acme/api')
            .send({ name: 'rc-1', description: 'release candidate', git_commit_info: { sha1: 'f00d' } }),
      ];
      for (const [i, step] of steps.entries()) {
        const res = await step();
        assert.ok(res.status < 300, `step ${i}: ${res.status}`);
        await pause();
        const at = now();
        if (i === 0) afterFlow = at;
        else seen.push({ at, body: (await t.http.get('/api/v2/trails/acme/api/rc-1')).body });
        await pause();
      }
    });
    after(async () => t.close());

    it('answers at every instant exactly what the live read answered then', async () => {
      assert.equal(seen.length, 7);
      const statuses = [];
      for (const { at, body } of seen) {
        const past = await t.http.get(`/api/v2/trails/acme/api/rc-1?at=${at}`);
        assert.equal(past.status, 200);
        assert.deepEqual(comparable(past.body), comparable(body), `at ${at}`);
        statuses.push((body as { compliance_status: { status: string } }).compliance_status.status);
      }
      // Asked again newest first, and each twice: kept folds never leak a later event into an earlier answer.
      for (const { at, body } of [...seen].reverse().flatMap((s) => [s, s])) {
        assert.deepEqual(
          comparable((await t.http.get(`/api/v2/trails/acme/api/rc-1?at=${at}`)).body),
          comparable(body),
          `at ${at}`,
        );
      }
      // The compliance history, template change included: the past is judged by the template it had.
      assert.deepEqual(statuses, [
        'INCOMPLETE',
        'INCOMPLETE',
        'NON-COMPLIANT',
        'NON-COMPLIANT',
        'INCOMPLETE',
        'COMPLIANT',
        'COMPLIANT',
      ]);
    });

    it('answers 404 before the flow or the trail existed, and 400 for a bad instant', async () => {
      const beforeFlow = await t.http.get(`/api/v2/trails/acme/api/rc-1?at=${beforeEverything}`);
      assert.deepEqual([beforeFlow.status, beforeFlow.body.message], [404, 'Flow not found']);
      const beforeTrail = await t.http.get(`/api/v2/trails/acme/api/rc-1?at=${afterFlow}`);
      assert.deepEqual([beforeTrail.status, beforeTrail.body.message], [404, 'Trail not found']);
      for (const bad of ['-1', 'yesterday']) {
        const res = await t.http.get(`/api/v2/trails/acme/api/rc-1?at=${bad}`);
        assert.deepEqual(
          [res.status, res.body.message, Object.keys(res.body.errors)],
          [400, 'Input payload validation failed', ['at']],
        );
      }
    });
  });
}
