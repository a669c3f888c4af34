import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isoMicros } from '#des/kernel';
import { Mode, startApp, TestApp } from './support/app';
import {
  Answer,
  answer,
  assertSameAsThen,
  clockPast,
  comparable,
  stepInstant,
  wallClock,
} from './support/time-travel';

const pod = (image: string, fingerprint: string, n = 1) => ({
  creationTimestamp: 1_790_000_000,
  digests: { [image]: `sha256:${fingerprint}` },
  namespace: 'shop',
  podName: `${image.replace(/\W/g, '-')}-${n}`,
});
const A = 'aa'.repeat(32);
const B = 'bb'.repeat(32);
const C = 'cc'.repeat(32);
const RANGE = 'from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z';
/** Every read of an environment that takes `?at=`, as the live API answers it. */
const READS = [
  '/api/v2/environments/acme',
  '/api/v2/environments/acme/prod',
  '/api/v2/environments/acme/prod/snapshots/-1',
  '/api/v2/environments/acme/prod/snapshots/1',
  '/api/v2/environments/acme/prod/snapshots/~1',
  '/api/v2/environments/acme/prod/events',
  `/api/v2/environments/acme/prod/deployments?${RANGE}`,
  '/api/v2/environments/acme/prod/auditlog',
  '/api/v2/environments/acme/prod/auditlog?event_types=started,changed',
];

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`time travel: environments at any instant (${mode} mode)`, () => {
    let t: TestApp;
    let beforeEverything = 0;
    const seen: { at: number; answers: Answer[] }[] = [];

    before(async () => {
      t = await startApp({ mode });
      beforeEverything = wallClock();
      await clockPast(beforeEverything);
      const report = (...pods: object[]) =>
        t.http.put('/api/v2/environments/acme/prod/report/K8S').send({ artifacts: pods });
      const steps = [
        () => t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }),
        () => report(pod('shop:1', A)),
        () => report(pod('shop:1', A, 2)), // the same set: no snapshot
        () => report(pod('shop:1', A), pod('cart:1', B)),
        () => t.http.patch('/api/v2/tags/acme/env/prod').send({ set_tags: { team: 'pay' } }),
        () => t.http.put('/api/v2/environments/acme').send({ name: 'staging', type: 'K8S' }),
        () => report(pod('shop:2', C), pod('cart:1', B)),
        () =>
          t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S', description: 'Live' }),
        () => report(),
      ];
      for (const [i, step] of steps.entries()) {
        const res = await step();
        assert.ok(res.status < 300, `step ${i}: ${res.status} ${JSON.stringify(res.body)}`);
        const at = await stepInstant(t);
        seen.push({ at, answers: await Promise.all(READS.map((path) => answer(t.http, path))) });
      }
    });
    after(async () => t.close());

    it('answers every read at every instant exactly as the live read answered then', async () => {
      assert.equal(seen.length, 9);
      await assertSameAsThen(t.http, seen);
      // The history is really there: the first snapshot started shop:1, the last one runs nothing.
      const first = seen[1].answers.find((a) => a.path.endsWith('/snapshots/-1'))!.body as {
        artifacts: { artifact_name: string }[];
      };
      assert.deepEqual(
        first.artifacts.map((a) => a.artifact_name),
        ['shop:1'],
      );
    });

    it('answers 404 before the environment existed, 400 for an instant in the future or malformed', async () => {
      const early = await t.http.get(`/api/v2/environments/acme/prod?at=${beforeEverything}`);
      assert.deepEqual([early.status, early.body.message], [404, 'Environment not found']);
      assert.deepEqual((await t.http.get(`/api/v2/environments/acme?at=${beforeEverything}`)).body, []);
      const future = await t.http.get(`/api/v2/environments/acme/prod?at=${Math.ceil(wallClock()) + 3600}`);
      assert.equal(future.status, 400);
      assert.equal(future.body.message, 'Input payload validation failed');
      assert.match(future.body.errors.at, /in the future/);
      for (const bad of ['yesterday', '-5', '']) {
        const res = await t.http.get(`/api/v2/environments/acme/prod/events?at=${bad}`);
        if (bad === '') continue; // an empty value is no instant: the live read
        assert.equal(res.status, 400, bad);
        assert.ok(res.body.errors.at, bad);
      }
    });

    // Folds are kept in memory whichever read store is live: once, on the embedded store, is enough.
    const embeddedOnly = mode === 'embedded' ? it : () => undefined;
    embeddedOnly('answers right across many kept folds of one stream, asked in any order', async () => {
      // 300 snapshots: past reads are served from folds kept every 128 events.
      await t.http.put('/api/v2/environments/acme').send({ name: 'busy', type: 'K8S' }).expect(201);
      const captured: { at: number; env: unknown; snapshot: unknown; events: number }[] = [];
      for (let i = 1; i <= 300; i++) {
        await t.http
          .put('/api/v2/environments/acme/busy/report/K8S')
          .send({ artifacts: [pod(`svc:${i}`, i.toString(16).padStart(64, '0'))] })
          .expect(201);
        if (i % 37 === 0 || i === 300) {
          const at = await stepInstant(t);
          captured.push({
            at,
            env: (await t.http.get('/api/v2/environments/acme/busy')).body,
            snapshot: (await t.http.get('/api/v2/environments/acme/busy/snapshots/-1')).body,
            events: (await t.http.get('/api/v2/environments/acme/busy/events')).body.length,
          });
        }
      }
      const order = [...captured.keys()].sort((a, b) => ((a * 7919) % 11) - ((b * 7919) % 11));
      for (const i of [...order, ...order.reverse()]) {
        const { at, env, snapshot, events } = captured[i];
        assert.deepEqual(
          comparable((await t.http.get(`/api/v2/environments/acme/busy?at=${at}`)).body),
          comparable(env),
        );
        assert.deepEqual(
          comparable((await t.http.get(`/api/v2/environments/acme/busy/snapshots/-1?at=${at}`)).body),
          comparable(snapshot),
        );
        assert.equal(
          (await t.http.get(`/api/v2/environments/acme/busy/events?at=${at}`)).body.length,
          events,
        );
      }
    });

    it('addresses snapshots by -1, N, ~N and @<UNIX seconds or ISO-8601>', async () => {
      const index = async (ref: string, at?: number | string) => {
        const res = await t.http.get(
          `/api/v2/environments/acme/prod/snapshots/${ref}${at ? `?at=${at}` : ''}`,
        );
        return res.status === 200 ? (res.body.index as number) : res.status;
      };
      // Snapshots: 1 (shop:1), 2 (+cart:1), 3 (shop:2 for shop:1), 4 (nothing runs).
      assert.equal(await index('-1'), 4);
      assert.equal(await index('2'), 2);
      assert.equal(await index('~0'), 4);
      assert.equal(await index('~3'), 1);
      assert.equal(await index('~4'), 404);
      assert.equal(await index('5'), 404);
      assert.equal(await index(`@${seen[3].at}`), 2, 'in force after the third report');
      assert.equal(await index(`@${seen[0].at}`), 404, 'none yet');
      assert.equal(await index(`@${seen[8].at}`), 4);
      assert.equal(await index('-1', seen[6].at), 3, 'the latest as of an instant');
      assert.equal(await index('~1', seen[6].at), 2);
      assert.equal(await index(`@${seen[8].at}`, seen[3].at), 2, 'never past ?at=');
      // ISO-8601 (with an offset, to the microsecond) names the same instants, in the reference and in ?at=.
      const iso = (at: number) => encodeURIComponent(isoMicros(at));
      assert.equal(await index(`@${iso(seen[3].at)}`), 2);
      assert.equal(await index(`@${iso(seen[0].at)}`), 404);
      assert.equal(await index('-1', iso(seen[6].at)), 3);
      const [unix, isoAnswer] = await Promise.all(
        [String(seen[6].at), iso(seen[6].at)].map((at) =>
          t.http.get(`/api/v2/environments/acme/prod?at=${at}`),
        ),
      );
      assert.deepEqual([isoAnswer.status, comparable(isoAnswer.body)], [200, comparable(unix.body)]);
      for (const bad of [
        '0',
        '-2',
        'latest',
        '~',
        '@x',
        '1.5',
        '@2026-11-23T18:44:00',
        '@2026-02-30T00:00:00Z',
      ]) {
        const res = await t.http.get(`/api/v2/environments/acme/prod/snapshots/${bad}`);
        assert.equal(res.status, 400, bad);
        assert.match(res.body.errors.index, /-1 \(the latest\), N, ~N/);
      }
    });
  });
}
