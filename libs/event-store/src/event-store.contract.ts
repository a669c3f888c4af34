import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { EventStore, EventToAppend, StoredEvent, WrongExpectedRevisionError } from './event-store.port';

const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: { org: 'acme', actor: { kind: 'user', name: 'tester' }, correlation_id: randomUUID() },
});

/** Names may contain '-', '.', '~'; '/' separates org and id. */
const streamName = (aggregate = 'trail') => `${aggregate}-acme/back.end-${randomUUID().slice(0, 8)}~1`;

/** The one contract every event store adapter passes. */
export function eventStoreContract(name: string, open: () => Promise<EventStore>): void {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    before(async () => {
      store = await open();
    });
    after(async () => {
      await store.close();
    });

    it('appends to a new stream and reads it back in revision order', async () => {
      const stream = streamName();
      const events = [event('trail_reported', { name: 'main' }), event('artifact_reported', { n: 1 })];
      const result = await store.append(stream, events, 'no_stream');
      assert.equal(result.nextRevision, 1);
      const read = await store.readStream(stream);
      assert.deepEqual(
        read.map((e) => [e.stream, e.revision, e.id, e.type, e.data, e.metadata]),
        events.map((e, i) => [stream, i, e.id, e.type, e.data, e.metadata]),
      );
      assert.equal(read[1].position, result.position);
      assert.ok(read[0].position < read[1].position);
    });

    it('refuses an append whose expected revision is stale', async () => {
      const stream = streamName();
      await store.append(stream, [event('a')], 'no_stream');
      await assert.rejects(store.append(stream, [event('b')], 'no_stream'), WrongExpectedRevisionError);
      await assert.rejects(store.append(stream, [event('b')], 5), WrongExpectedRevisionError);
      await assert.rejects(
        store.append(streamName(), [event('b')], 'stream_exists'),
        WrongExpectedRevisionError,
      );
      const ok = await store.append(stream, [event('b')], 0);
      assert.equal(ok.nextRevision, 1);
      const any = await store.append(stream, [event('c')], 'any');
      assert.equal(any.nextRevision, 2);
      assert.equal((await store.readStream(stream)).length, 3);
    });

    it('is idempotent by event id', async () => {
      const stream = streamName();
      const events = [event('a'), event('b')];
      const first = await store.append(stream, events, 'no_stream');
      const again = await store.append(stream, events, 'no_stream');
      assert.equal(again.nextRevision, first.nextRevision);
      assert.equal(again.position, first.position);
      assert.equal((await store.readStream(stream)).length, 2);
    });

    it('reads an unknown stream as empty', async () => {
      assert.deepEqual(await store.readStream(streamName('nothing')), []);
    });

    it('reads the log after a position, in order, with a limit', async () => {
      const start = (await store.head()).position;
      const stream = streamName();
      await store.append(stream, [event('a'), event('b'), event('c')], 'no_stream');
      await store.append(streamName(), [event('d')], 'no_stream');
      const all = (await store.readAll(start, 100)).filter((e) => e.position > start);
      const ours = all.filter((e) => ['a', 'b', 'c', 'd'].includes(e.type)).map((e) => e.type);
      assert.deepEqual(ours.slice(-4), ['a', 'b', 'c', 'd']);
      const limited = await store.readAll(start, 2);
      assert.equal(limited.length, 2);
      assert.ok(limited.every((e) => e.position > start));
    });

    it('resumes the log in the middle of a multi-event append', async () => {
      const stream = streamName();
      await store.append(stream, [event('m1'), event('m2'), event('m3')], 'no_stream');
      const [first] = await store.readStream(stream);
      const rest = await store.readAll(first.position, 2);
      assert.deepEqual(
        rest.map((e) => e.type),
        ['m2', 'm3'],
      );
    });

    it('keeps the global position strictly increasing and recorded_at never decreasing', async () => {
      const start = (await store.head()).position;
      for (let i = 0; i < 20; i++)
        await store.append(streamName(), [event('tick'), event('tock')], 'no_stream');
      const log = await store.readAll(start, 1000);
      assert.ok(log.length >= 40);
      for (let i = 1; i < log.length; i++) {
        assert.ok(log[i].position > log[i - 1].position, 'position increases');
        assert.ok(log[i].recordedAt >= log[i - 1].recordedAt, 'recorded_at never decreases');
      }
      const head = await store.head();
      assert.equal(head.position, log[log.length - 1].position);
    });

    it('reads a stream as it was at an instant', async () => {
      const stream = streamName();
      const first = await store.append(stream, [event('before')], 'no_stream');
      await new Promise((r) => setTimeout(r, 5));
      await store.append(stream, [event('after')], 0);
      const atFirst = await store.readStream(stream, { untilRecordedAt: first.recordedAt });
      assert.deepEqual(
        atFirst.map((e) => e.type),
        ['before'],
      );
      assert.deepEqual(await store.readStream(stream, { untilRecordedAt: first.recordedAt - 1_000_000 }), []);
      assert.equal((await store.readStream(stream, { fromRevision: 1 }))[0].type, 'after');
    });

    it('follows the log: catches up, then delivers live appends', async () => {
      const start = (await store.head()).position;
      const stream = streamName();
      await store.append(stream, [event('e1'), event('e2')], 'no_stream');
      const seen: StoredEvent[] = [];
      const following = store.follow(start, async (batch) => {
        seen.push(...batch.filter((e) => e.stream === stream));
      });
      try {
        await until(() => seen.length === 2);
        await store.append(stream, [event('e3')], 1);
        await until(() => seen.length === 3);
        assert.deepEqual(
          seen.map((e) => e.type),
          ['e1', 'e2', 'e3'],
        );
      } finally {
        await following.stop();
      }
    });
  });
}

export async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
