import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type EventStore, microsToSeconds, secondsToMicros } from '#des/event-store';
import { EVENT_STORE, READ_STORE } from '#des/platform';
import { docReads, type ReadStore } from '#des/read-store';
import { trailNamed, trailStream } from '#des/trails';
import { Mode, startApp, TestApp } from './support/app';
import { eventually } from './support/processes';
import { binary, textOf } from './support/pdf';

const FP = 'cd'.repeat(32);
const CHUNK = 1_000;

/**
 * A trail's history does not grow its document: the timeline lives in one
 * document per entry, paged on read, now and at a past instant. Embedded mode
 * carries 100k events; server mode fewer (every timeline entry is a write
 * into the MongoDB-wire server) and checks the trail's document stays the
 * size it was, which is what keeps it clear of MongoDB's 16 MB limit.
 */
const SIZES: Record<Mode, number> = { embedded: 100_000, server: 5_000 };

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`a trail with ${SIZES[mode].toLocaleString('en')} events (${mode} mode)`, () => {
    let t: TestApp;
    let store: EventStore;
    let reads: ReadStore;
    /** The instant after the first half, and the events recorded by then. */
    let middle: { at: number; count: number };
    let docSizeEarly: number;
    const total = SIZES[mode] + 2;

    const attestation = (i: number) => ({
      id: `a-${i}`,
      type: 'attestation_reported',
      data: {
        id: `a-${i}`,
        name: `check-${i % 20}`,
        type: 'generic',
        compliant: i % 7 !== 0,
        artifact_fingerprint: i % 10 === 0 ? FP : null,
        description: '',
        origin_url: null,
        user_data: {},
        evidence: {},
      },
      metadata: { org: 'acme', actor: { kind: 'user' as const, name: 'loader' } },
    });
    const trailDoc = () => trailNamed(docReads(reads), 'acme', 'shop', 'long');

    before(async () => {
      t = await startApp({ mode });
      store = t.app.get<EventStore>(EVENT_STORE);
      reads = t.app.get<ReadStore>(READ_STORE);
      assert.equal((await t.http.put('/api/v2/flows/acme').send({ name: 'shop' })).status, 201);
      assert.equal((await t.http.put('/api/v2/trails/acme/shop').send({ name: 'long' })).status, 201);
      const artifact = await t.http
        .post('/api/v2/artifacts/acme/shop')
        .send({ fingerprint: FP, filename: 'shop.jar', trail_name: 'long' });
      assert.equal(artifact.status, 201);
      docSizeEarly = JSON.stringify(await trailDoc()).length;
      // Appended straight to the trail's stream, a chunk at a time: the HTTP path is the same events one by one.
      const stream = trailStream('acme', 'shop', 'long');
      let revision = 1;
      for (let from = 0; from < SIZES[mode]; from += CHUNK) {
        const chunk = Array.from({ length: Math.min(CHUNK, SIZES[mode] - from) }, (_, i) =>
          attestation(from + i),
        );
        const appended = await store.append(stream, chunk, revision);
        revision = appended.nextRevision;
        if (!middle && from + CHUNK >= SIZES[mode] / 2) {
          const at = microsToSeconds(appended.recordedAt);
          const count = (await store.readStream(stream, { untilRecordedAt: secondsToMicros(at) })).length;
          middle = { at, count };
        }
      }
      await eventually(
        async () => (await t.http.get('/api/v2/trails/acme/shop/long')).body.event_count,
        (count) => count === total,
        600_000,
      );
    });
    after(async () => t.close());

    it("keeps the trail's document the size it had, whatever its history", async () => {
      const doc = await trailDoc();
      assert.equal(doc?.event_count, total);
      assert.equal('events' in (doc ?? {}), false);
      const size = JSON.stringify(doc).length;
      // 20 attestation names and one artifact's: it grew by those, not by the history.
      assert.ok(size < docSizeEarly + 20_000, `trail document ${size} bytes (was ${docSizeEarly})`);
    });

    it('shows the trail with its latest attestation of each name and the count of its timeline', async () => {
      const res = await t.http.get('/api/v2/trails/acme/shop/long');
      assert.equal(res.status, 200);
      assert.equal(res.body.event_count, total);
      // Every tenth attestation is on the artifact: check-0 and check-10 are its names.
      assert.equal(Object.keys(res.body.attestations).length, 18);
      assert.deepEqual(Object.keys(res.body.artifacts[0].attestations).sort(), ['check-0', 'check-10']);
      const last = SIZES[mode] - 1;
      assert.equal(res.body.attestations[`check-${last % 20}`].id, `a-${last}`);
      assert.ok(res.text.length < 50_000, `the trail answers ${res.text.length} bytes`);
    });

    it('pages the whole timeline in order, first, middle and last page', async () => {
      const first = (await t.http.get('/api/v2/trails/acme/shop/long/events?per_page=100')).body;
      assert.deepEqual(
        [first.total_count, first.total_pages, first.events.length],
        [total, Math.ceil(total / 100), 100],
      );
      assert.deepEqual(
        first.events
          .slice(0, 3)
          .map((e: { seq: number; type: string; summary: string }) => [e.seq, e.type, e.summary]),
        [
          [0, 'trail_reported', 'trail long begun'],
          [1, 'artifact_reported', `artifact shop.jar reported (${FP.slice(0, 12)})`],
          [
            2,
            'attestation_reported',
            `generic attestation check-0: non-compliant (artifact ${FP.slice(0, 12)})`,
          ],
        ],
      );
      const page = Math.ceil(total / 200);
      const mid = (await t.http.get(`/api/v2/trails/acme/shop/long/events?per_page=100&page=${page}`)).body;
      assert.deepEqual(
        mid.events.map((e: { seq: number }) => e.seq),
        Array.from({ length: 100 }, (_, i) => (page - 1) * 100 + i),
      );
      const lastPage = (await t.http.get(first._links.self.replace('page=1', `page=${first.total_pages}`)))
        .body;
      assert.equal(lastPage.events.at(-1).seq, total - 1);
      assert.equal(lastPage._links.next, null);
      const beyond = (
        await t.http.get(`/api/v2/trails/acme/shop/long/events?per_page=100&page=${first.total_pages + 1}`)
      ).body;
      assert.deepEqual(beyond.events, []);
    });

    it('answers the trail and its timeline as they were at an instant in the middle', async () => {
      const then = await t.http.get(`/api/v2/trails/acme/shop/long?at=${middle.at}`);
      assert.equal(then.body.event_count, middle.count);
      const timeline = (await t.http.get(`/api/v2/trails/acme/shop/long/events?per_page=100&at=${middle.at}`))
        .body;
      assert.equal(timeline.total_count, middle.count);
      assert.ok(timeline._links.self.includes(`at=${middle.at}`));
      const lastThen = (
        await t.http.get(
          `/api/v2/trails/acme/shop/long/events?per_page=100&page=${timeline.total_pages}&at=${middle.at}`,
        )
      ).body;
      assert.equal(lastThen.events.at(-1).seq, middle.count - 1);
      // A past page equals the live page of the same entries.
      const live = (
        await t.http.get(`/api/v2/trails/acme/shop/long/events?per_page=100&page=${timeline.total_pages}`)
      ).body;
      assert.deepEqual(lastThen.events, live.events.slice(0, lastThen.events.length));
    });

    it('prints the latest entries of the timeline in the audit PDF, and says where the rest are', async () => {
      const res = await t.http.get('/api/v2/trails/acme/shop/long/audit_pdf').buffer(true).parse(binary);
      assert.equal(res.status, 200);
      const text = textOf(res.body as Buffer).replace(/\s+/g, ' ');
      assert.ok(
        text.includes(`The latest 2,000 of ${total.toLocaleString('en')} entries`),
        'the PDF says how much of the timeline it prints',
      );
      assert.ok(text.includes('/api/v2/trails/acme/shop/long/events'));
      assert.ok(text.includes(`check-${(SIZES[mode] - 1) % 20}`));
    });
  });
}
