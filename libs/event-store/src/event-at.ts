import type { EventStore, StoredEvent } from './event-store.port';

/** The event at a log position (a position `readAll` gave), or undefined when the log holds none there. */
export async function eventAt(store: EventStore, position: number): Promise<StoredEvent | undefined> {
  const [event] = await store.readAll(position - 1, 1);
  return event?.position === position ? event : undefined;
}
