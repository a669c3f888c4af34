import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventStore } from '#des/event-store';
import { environmentStream } from '#des/environments';
import { EVENT_STORE } from '#des/platform';
import { trailStream } from '#des/trails';
import type { Response } from 'supertest';
import { Mode, startApp, TestApp } from './support/app';

const WRITERS = 100;
/** The two races a retry wins: a stream changed under the write, or the same Idempotency-Key still being answered. */
const RETRY = [
  'The resource was changed concurrently; retry the request.',
  'A request with this Idempotency-Key is still in progress; retry the request.',
];

const pods = (images: number[]) =>
  images.map((i) => ({
    podName: `svc-${i}`,
    namespace: 'prod',
    creationTimestamp: 1_790_000_000,
    digests: { [`registry.local/svc-${i}:1`]: `sha256:${i.toString(16).padStart(64, '0')}` },
  }));

/**
 * 100 writers at once on one trail and one environment: every write lands
 * (a 409 only ever says "retry", and a retry wins), none is lost or doubled,
 * and the streams' revisions run without a gap.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`100 concurrent writers on one trail and one environment (${mode} mode)`, () => {
    let t: TestApp;
    let events: EventStore;
    const conflicts = { seen: 0 };

    /** Sends until it is not a 409, as a client told to retry does; the 409s must all say "retry". */
    const untilNot409 = async (send: () => Promise<Response>): Promise<Response> => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const res = await send();
        if (res.status !== 409) return res;
        conflicts.seen++;
        assert.ok(RETRY.includes(res.body.message), JSON.stringify(res.body));
      }
      throw new Error('still 409 after 100 tries');
    };

    before(async () => {
      t = await startApp({ mode });
      events = t.app.get(EVENT_STORE);
      assert.equal((await t.http.put('/api/v2/flows/acme').send({ name: 'shop' })).status, 201);
      assert.equal((await t.http.put('/api/v2/trails/acme/shop').send({ name: 'b1' })).status, 201);
      assert.equal(
        (await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' })).status,
        201,
      );
    });
    after(async () => t.close());

    /** The stream's events, checked to run from revision 0 without a gap. */
    const contiguous = async (stream: string) => {
      const recorded = await events.readStream(stream);
      recorded.forEach((e, i) => assert.equal(e.revision, i, `${stream} revision ${i}`));
      return recorded;
    };

    it('attestations: 100 at once, each once, revisions without a gap, with and without Idempotency-Key', async () => {
      const attest = (i: number, key?: string) => () => {
        const req = t.http.post('/api/v2/attestations/acme/shop/trail/b1/generic').send({
          attestation_name: `check-${i}`,
        });
        return key ? req.set('Idempotency-Key', key) : req;
      };
      // Half with a key, each sent twice at once (a client's retry racing its first try).
      const answers = await Promise.all(
        Array.from({ length: WRITERS }, (_, i) =>
          i % 2 === 0
            ? untilNot409(attest(i))
            : Promise.all([untilNot409(attest(i, `att-${i}`)), untilNot409(attest(i, `att-${i}`))]),
        ),
      );
      for (const res of answers.flat()) assert.equal(res.status, 201, JSON.stringify(res.body));
      const recorded = (await contiguous(trailStream('acme', 'shop', 'b1'))).filter(
        (e) => e.type === 'attestation_reported',
      );
      assert.equal(recorded.length, WRITERS, 'one event per attestation, none doubled by a racing retry');
      assert.equal(
        new Set(recorded.map((e) => JSON.stringify(e.data).match(/check-\d+/)?.[0])).size,
        WRITERS,
      );
      const trail = await t.http.get('/api/v2/trails/acme/shop/b1');
      assert.equal(Object.keys(trail.body.attestations).length, WRITERS);
      assert.equal(trail.body.event_count, 1 + WRITERS);
    });

    it('tags: 100 patches at once on the environment, every key there, one event each', async () => {
      const answers = await Promise.all(
        Array.from({ length: WRITERS }, (_, i) =>
          untilNot409(() =>
            t.http.patch('/api/v2/tags/acme/environment/prod').send({ set_tags: { [`k${i}`]: `v${i}` } }),
          ),
        ),
      );
      for (const res of answers) assert.equal(res.status, 200, JSON.stringify(res.body));
      const env = await t.http.get('/api/v2/environments/acme/prod');
      assert.equal(Object.keys(env.body.tags).length, WRITERS);
      const recorded = await contiguous(environmentStream('acme', 'prod'));
      assert.equal(recorded.filter((e) => e.type === 'tags_changed').length, WRITERS);
    });

    it('K8S reports: 100 at once, each a snapshot or a no-op, snapshot numbers without a gap', async () => {
      const answers = await Promise.all(
        Array.from({ length: WRITERS }, (_, i) =>
          untilNot409(() =>
            t.http
              .put('/api/v2/environments/acme/prod/report/K8S')
              .send({ artifacts: pods([i % 7, 100 + i]) }),
          ),
        ),
      );
      for (const res of answers) assert.ok([200, 201].includes(res.status), JSON.stringify(res.body));
      const created = answers.filter((r) => r.status === 201).length;
      const recorded = await contiguous(environmentStream('acme', 'prod'));
      const snapshots = recorded.filter((e) => e.type === 'snapshot_created');
      assert.equal(snapshots.length, created);
      snapshots.forEach((e, i) => assert.equal((e.data as { index: number }).index, i + 1));
      const latest = await t.http.get('/api/v2/environments/acme/prod/snapshots/-1');
      assert.equal(latest.body.index, created);
      console.log(
        `# concurrency (${mode}): ${3 * WRITERS} writers, ${conflicts.seen} answers 409 (each retried and landed)`,
      );
    });
  });
}
