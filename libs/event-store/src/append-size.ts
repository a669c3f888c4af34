import type { EventToAppend, StoredEvent } from './event-store.port';

/**
 * KurrentDB's default MaxAppendSize (1 MiB, "the total size of all events in the
 * append request"): ClusterVNodeOptions.MaxAppendSize = 1_024 * 1_024 in
 * kurrent-io/KurrentDB. Both adapters enforce the same configurable limit.
 */
export const DEFAULT_MAX_APPEND_SIZE = 1024 * 1024;

/**
 * An append's size as the KurrentDB server counts it (Event.SizeOnDisk: data
 * bytes + metadata bytes + 2 × the type's length, summed over the append), with
 * data and metadata serialized as the client serializes them (JSON.stringify).
 */
export function appendSize(events: EventToAppend[]): number {
  return serializedAppendSize(
    events.map((e) => ({
      type: e.type,
      data: JSON.stringify(e.data),
      metadata: e.metadata ? JSON.stringify(e.metadata) : '',
    })),
  );
}

/** The same size from data and metadata already serialized (JSON of the same length, whatever its key order). */
export function serializedAppendSize(events: { type: string; data: string; metadata: string }[]): number {
  let size = 0;
  for (const e of events) {
    size += Buffer.byteLength(e.data, 'utf8') + Buffer.byteLength(e.metadata, 'utf8') + 2 * e.type.length;
  }
  return size;
}

/** A stored event's size as its append counted it: the store's own count where it kept one, else counted again. */
export const eventSize = (event: StoredEvent): number =>
  event.size ?? appendSize([{ id: event.id, type: event.type, data: event.data, metadata: event.metadata }]);
