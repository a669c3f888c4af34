import { microsToSeconds, type StoredEvent } from '#des/event-store';
import type { Doc, IndexSpec, ReadStore, Update } from '#des/read-store';

/** One write of a projection: an upsert of one document by `_id`, with MongoDB update operators. */
export interface DocWrite {
  collection: string;
  id: string;
  update: Update;
  /**
   * The document is written once and never changed (a timeline entry): it is
   * inserted with `update.$set`'s fields, and found there on a replay.
   * Inserting is cheap where updating is not (FerretDB's SQLite backend reads
   * the whole collection for every update).
   */
  once?: true;
  /**
   * The event makes the document (its stream's first event, say): the
   * document is inserted as this write and the batch's later writes to it
   * leave an empty one. Only when it is there already (a replay) are the
   * writes applied as updates, each guarded by its position. An insert finds
   * the document by its `_id` index where a guarded update may not (FerretDB
   * reads the whole collection for one).
   */
  fresh?: true;
}

/** Reads the projection may need to compute its writes (e.g. denormalised names). */
export interface ProjectionReads {
  get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null>;
  find<T extends Doc = Doc>(collection: string, filter: Record<string, unknown>): Promise<T[]>;
}

/**
 * A read model: a pure function from one event to document writes. The same
 * code runs against MongoDB and the in-memory store, live and in rebuilds.
 */
export interface Projection {
  /** Stable name: keys its checkpoint. */
  readonly name: string;
  /** The collections it owns, with their indexes (declared once, dropped on rebuild). */
  readonly collections: { name: string; indexes: IndexSpec[] }[];
  project(event: StoredEvent, reads: ProjectionReads): DocWrite[] | Promise<DocWrite[]>;
  /**
   * The streams whose events make its documents of `org` (of one entity,
   * where `within` names it: a flow, an environment …): what a read of them at
   * a past instant folds (`ReadModelsAt`). Beside `project`, so the two change
   * together; `projectionSpec` checks that these streams alone make the same
   * documents. Absent on projections no read travels in time.
   */
  sources?(org: string, within?: string): StreamSources;
}

/** Streams by name, and every stream under a prefix. */
export interface StreamSources {
  streams?: string[];
  prefixes?: string[];
}

/** Whether `stream` is one of `sources`. */
export function inSources(sources: StreamSources, stream: string): boolean {
  return (
    (sources.streams ?? []).includes(stream) || (sources.prefixes ?? []).some((p) => stream.startsWith(p))
  );
}

export const CHECKPOINTS = '_checkpoints';

export async function declareCollections(store: ReadStore, projections: Projection[]): Promise<void> {
  for (const projection of projections) {
    for (const c of projection.collections) await store.ensureIndexes(c.name, c.indexes);
  }
}

/** One event of an aggregate's stream (`<aggregate>-<org>/<id>`), with what a projection needs of it. */
export interface AggregateEvent<E> {
  org: string;
  /** The aggregate's id within its organization: the stream name after `<org>/`. */
  id: string;
  /** When it was recorded, in UNIX seconds. */
  at: number;
  event: E;
}

/** `stored` as an event of `aggregate`'s streams, or null when it belongs to another stream. */
export function aggregateEvent<E extends { type: string; data: unknown }>(
  stored: StoredEvent,
  aggregate: string,
): AggregateEvent<E> | null {
  if (!stored.stream.startsWith(`${aggregate}-`)) return null;
  return {
    org: stored.metadata.org as string,
    id: stored.stream.slice(stored.stream.indexOf('/') + 1),
    at: microsToSeconds(stored.recordedAt),
    event: { type: stored.type, data: stored.data } as E,
  };
}
