import type { EventStore, StoredEvent } from '#des/event-store';
import type { ReadStore } from '#des/read-store';
import type { Projection } from './projection';

/** Drops every collection these projections write (a rebuild starts them empty). */
export async function dropReadModels(store: ReadStore, projections: Projection[]): Promise<void> {
  for (const p of projections) {
    for (const c of p.collections) await store.dropCollection(c.name);
  }
}

/**
 * Hands the log, from its beginning to its head at the call, to `apply` batch
 * by batch. Progress is in events: done so far, and the log's event count
 * where the store can tell (undefined on KurrentDB, whose positions are byte
 * offsets, not counts). Returns the events replayed.
 */
export async function replayLog(
  events: EventStore,
  batchSize: number,
  apply: (batch: StoredEvent[]) => Promise<void>,
  onProgress?: (done: number, total: number | undefined) => void,
): Promise<number> {
  const head = await events.head();
  const total = await events.eventCount();
  let after = 0;
  let done = 0;
  onProgress?.(done, total);
  for (;;) {
    const batch = await events.readAll(after, batchSize);
    if (batch.length === 0 || batch[0].position > head.position) break;
    await apply(batch);
    after = batch[batch.length - 1].position;
    done += batch.length;
    onProgress?.(done, total);
  }
  return done;
}
