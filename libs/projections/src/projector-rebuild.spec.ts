import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { EventStore, SqliteEventStore, StoredEvent } from '#des/event-store';
import { MemoryReadStore } from '#des/read-store';
import { Projector } from './projector';
import { streamStatsProjection } from './stream-stats.projection';

/** SQLite underneath, with positions as KurrentDB has them: byte offsets far from event counts. */
function withByteOffsets(inner: SqliteEventStore): EventStore {
  const toOffset = (p: number) => (p === 0 ? 0 : 1e12 + p * 4096);
  const fromOffset = (p: number) => (p === 0 ? 0 : (p - 1e12) / 4096);
  const shift = (e: StoredEvent) => ({ ...e, position: toOffset(e.position) });
  return Object.assign(Object.create(inner) as EventStore, {
    readAll: async (after: number, limit: number) =>
      (await inner.readAll(fromOffset(after), limit)).map(shift),
    head: async () => {
      const h = await inner.head();
      return { ...h, position: toOffset(h.position) };
    },
    eventCount: async () => undefined,
  });
}

async function seeded(n: number): Promise<SqliteEventStore> {
  const store = new SqliteEventStore({ path: ':memory:' });
  for (let i = 0; i < n; i++) {
    await store.append(
      `env-acme/e${i % 3}`,
      [{ id: randomUUID(), type: 't', data: {}, metadata: { org: 'acme' } }],
      'any',
    );
  }
  return store;
}

describe('Projector.rebuild progress', () => {
  it('reports events done against the log’s event count where the store can count', async () => {
    const events = await seeded(30);
    const progress: [number, number | undefined][] = [];
    const done = await new Projector(events, new MemoryReadStore(), [streamStatsProjection], {
      batchSize: 7,
    }).rebuild((n, total) => progress.push([n, total]));
    assert.equal(done, 30);
    assert.deepEqual(progress, [
      [0, 30],
      [7, 30],
      [14, 30],
      [21, 30],
      [28, 30],
      [30, 30],
    ]);
    await events.close();
  });

  it('never reports a byte offset: with KurrentDB-like positions the total is unknown', async () => {
    const inner = await seeded(12);
    const progress: [number, number | undefined][] = [];
    const done = await new Projector(withByteOffsets(inner), new MemoryReadStore(), [streamStatsProjection], {
      batchSize: 5,
    }).rebuild((n, total) => progress.push([n, total]));
    assert.equal(done, 12);
    assert.deepEqual(progress, [
      [0, undefined],
      [5, undefined],
      [10, undefined],
      [12, undefined],
    ]);
    await inner.close();
  });
});
