import type { EventStore, StoredEvent } from '#des/event-store';

/** Every event of the log, in order: `readAll` answers a batch at a time (a short one past ~1 MiB of events). */
export async function readWholeLog(store: Pick<EventStore, 'readAll'>): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (let after = 0; ; ) {
    const batch = await store.readAll(after, 10_000);
    if (batch.length === 0) return all;
    all.push(...batch);
    after = batch[batch.length - 1].position;
  }
}
