import { type Doc, DuplicateKeyError, ReadStore, type BulkUpdate } from '#des/read-store';
import type { DocWrite } from './projection';

/** Field on every projected document: the global position of the last event applied to it. */
export const POSITION_FIELD = '_pos';

/** A read-model document as an API shows it: without `_id` and the position guard. */
export function withoutInternals<T extends { _id?: unknown; [POSITION_FIELD]?: unknown }>(
  doc: T,
): Omit<T, '_id' | '_pos'> {
  const { _id, _pos, ...rest } = doc;
  void _id;
  void _pos;
  return rest;
}

/** A projection write with the position of the event that caused it. */
export interface PositionedWrite {
  write: DocWrite;
  position: number;
}

/** A write-once document as it is inserted: `_pos` is the event that made it. */
export function created({ write, position }: PositionedWrite): Doc {
  return { ...(write.update.$set ?? {}), _id: write.id, [POSITION_FIELD]: position };
}

function guarded({ write, position }: PositionedWrite): BulkUpdate {
  return {
    filter: { _id: write.id, [POSITION_FIELD]: { $lt: position } },
    update: { ...write.update, $set: { ...(write.update.$set ?? {}), [POSITION_FIELD]: position } },
    upsert: true,
  };
}

/** A refused guarded upsert means the document is already at or past this position: applied before. */
async function wasApplied(store: ReadStore, { write, position }: PositionedWrite): Promise<boolean> {
  const existing = await store.collection(write.collection).findOne({ _id: write.id });
  return existing !== null && (existing[POSITION_FIELD] as number) >= position;
}

/**
 * Applies a write only if the document has not yet seen this position. A crash
 * between a write and the checkpoint therefore never applies an event twice,
 * with no multi-document transaction. False when it had already been applied.
 */
export async function applyOnce(store: ReadStore, write: DocWrite, position: number): Promise<boolean> {
  if (write.once)
    return (await store.collection(write.collection).insertOnce([created({ write, position })])) > 0;
  const op = guarded({ write, position });
  try {
    const r = await store.collection(write.collection).updateOne(op.filter, op.update, { upsert: true });
    return r.matched > 0 || r.upserted;
  } catch (error) {
    if (error instanceof DuplicateKeyError && (await wasApplied(store, { write, position }))) return false;
    throw error;
  }
}

/**
 * The same guarantee for a run of writes to one collection, in order, in as
 * few round trips as the store allows. When the store reports a refusal, the
 * write it names was applied already (or the refusal is real and thrown), and
 * the rest is resubmitted: every write is position-guarded, so resubmitting
 * one that did land is a no-op.
 */
export async function applyAllOnce(
  store: ReadStore,
  collection: string,
  writes: PositionedWrite[],
): Promise<void> {
  // Runs of write-once inserts and of guarded updates, each in bulk, in order.
  for (let start = 0; start < writes.length;) {
    const once = writes[start].write.once === true;
    let end = start + 1;
    while (end < writes.length && (writes[end].write.once === true) === once) end++;
    const run = writes.slice(start, end);
    if (once) await store.collection(collection).insertOnce(run.map(created));
    else await applyUpdatesOnce(store, collection, run);
    start = end;
  }
}

async function applyUpdatesOnce(
  store: ReadStore,
  collection: string,
  writes: PositionedWrite[],
): Promise<void> {
  let rest = writes;
  while (rest.length > 0) {
    const outcome = await store.collection(collection).bulkUpdate(rest.map(guarded));
    if (outcome.failedAt === undefined) return;
    if (!(await wasApplied(store, rest[outcome.failedAt]))) throw outcome.error;
    rest = rest.slice(outcome.failedAt + 1);
  }
}
