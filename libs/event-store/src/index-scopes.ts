/**
 * The scope index: which index streams an event goes into, and which one a
 * prefix read goes through. Pure; the KurrentDB adapter keeps the index
 * (links appended to index streams), SQLite's is its B-tree on the stream name.
 *
 * A scope is a prefix of a stream name that ends at a `/`: for
 * `trail-acme/web/web-1`, `trail-acme/` (every trail of the organization) and
 * `trail-acme/web/` (the flow's trails). Time travel reads scopes of these two
 * kinds (the projections' `sources`), so the index keeps the first
 * INDEX_DEPTH of them: an event costs that many links at most.
 */
export const INDEX_DEPTH = 2;

/** Names no aggregate stream takes (those are `<aggregate>-<org>…`, aggregate in snake_case), and not `$` (system) streams. */
const INDEX_STREAM_PREFIX = 'des:index/';
/** Links to the last event the index covers: the latest is the index's checkpoint. */
export const INDEX_CHECKPOINT_STREAM = 'des:index-checkpoint';

/** The scopes `stream` belongs to, widest first: its prefixes ending at a `/`, at most INDEX_DEPTH. */
export function scopesOf(stream: string): string[] {
  const scopes: string[] = [];
  for (let at = stream.indexOf('/'); at >= 0 && scopes.length < INDEX_DEPTH; at = stream.indexOf('/', at + 1))
    scopes.push(stream.slice(0, at + 1));
  return scopes;
}

/**
 * The scope a read of every stream under `prefix` goes through: the narrowest
 * indexed scope that holds all of them (the prefix itself when it is one;
 * its events are then kept by the prefix), or undefined when none does (no
 * `/` in the prefix: the read is not indexed).
 */
export function scopeFor(prefix: string): string | undefined {
  const scopes = scopesOf(prefix);
  return scopes[scopes.length - 1];
}

/** The stream that holds a scope's links. */
export function indexStreamOf(scope: string): string {
  return `${INDEX_STREAM_PREFIX}${scope}`;
}

/** Whether `stream` is one of the index's own (never indexed, never a domain stream). */
export function isIndexStream(stream: string): boolean {
  return stream.startsWith(INDEX_STREAM_PREFIX) || stream === INDEX_CHECKPOINT_STREAM;
}

/**
 * The links a batch of events (in position order) adds: each index stream
 * with its events, in position order. An event goes into every scope of its
 * stream.
 */
export function linksOf<E extends { stream: string }>(events: E[]): Map<string, E[]> {
  const links = new Map<string, E[]>();
  for (const event of events) {
    if (isIndexStream(event.stream)) continue;
    for (const scope of scopesOf(event.stream)) {
      const stream = indexStreamOf(scope);
      const list = links.get(stream);
      if (list) list.push(event);
      else links.set(stream, [event]);
    }
  }
  return links;
}

/**
 * What a link carries besides its target (`<revision>@<stream>`, the data of
 * a KurrentDB link event): the target's global position and recorded_at, so
 * the index is read in the log's order and bounded without resolving a link
 * first.
 */
export interface LinkMetadata {
  position: number;
  recorded_at: number;
}

/** The data of a link event to an event: KurrentDB's `<revision>@<stream>`. */
export function linkData(event: { stream: string; revision: number }): string {
  return `${event.revision}@${event.stream}`;
}

/** The target position and recorded_at a link's metadata names, or undefined when it names none. */
export function linkTarget(metadata: unknown): LinkMetadata | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const { position, recorded_at } = metadata as Record<string, unknown>;
  if (!Number.isSafeInteger(position) || (position as number) <= 0) return undefined;
  if (!Number.isSafeInteger(recorded_at)) return undefined;
  return { position: position as number, recorded_at: recorded_at as number };
}

/**
 * Where a read of a scope up to a bound ends, given what the index covers
 * (the checkpoint: the last event every index stream holds a link to, and
 * every event before it): whether the log after the checkpoint (its tail, not
 * indexed yet) can hold an event within the bound. recorded_at never
 * decreases along the position, so an instant before the checkpoint's rules
 * the tail out.
 */
export function tailNeeded(
  covered: { position: number; recordedAt: number },
  bound: { untilPosition: number; untilRecordedAt: number },
): boolean {
  return bound.untilPosition > covered.position && bound.untilRecordedAt >= covered.recordedAt;
}
