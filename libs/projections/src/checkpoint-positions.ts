import type { Doc, Update } from '#des/read-store';

/**
 * The document (in the checkpoints collection) holding every checkpoint's
 * position by name, so a batch moves them all with one single-document
 * write: a bulk of one update per projection costs a round trip each on some
 * MongoDB-wire servers. Per-name documents keep a stopped projection's
 * `failed` record (and, written before, a `position` that is still read).
 */
export const POSITIONS = '_positions';

/** Names as field names: a dot would be a path. */
const field = (name: string) => `at.${name.replace(/\./g, '\uff0e')}`;
const nameOf = (key: string) => key.replace(/\uff0e/g, '.');

/** Checkpoint positions by name, from every document of the checkpoints collection. */
export function positionsFrom(docs: Doc[]): Map<string, number> {
  const positions = new Map<string, number>();
  const keep = (name: string, position: unknown) => {
    if (typeof position === 'number') positions.set(name, Math.max(positions.get(name) ?? 0, position));
  };
  for (const doc of docs) {
    if (doc._id === POSITIONS) {
      for (const [key, position] of Object.entries((doc.at ?? {}) as Record<string, unknown>))
        keep(nameOf(key), position);
    } else keep(doc._id, doc.position);
  }
  return positions;
}

/** Moves each named checkpoint to its own position (never back). */
export function advanceEach(positions: Iterable<[string, number]>): Update {
  const $max: Record<string, number> = {};
  for (const [name, position] of positions) $max[field(name)] = position;
  return { $max };
}

/** Forgets these checkpoints' positions (a rebuild starts them from 0). */
export function forgetPositions(names: string[]): Update {
  return { $unset: Object.fromEntries(names.map((name) => [field(name), ''])) };
}
