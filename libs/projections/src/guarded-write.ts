import { type Doc, DuplicateKeyError, ReadStore, type BulkUpdate, updatedDocument } from '#des/read-store';
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
  all: PositionedWrite[],
): Promise<void> {
  const writes = await insertFresh(store, collection, all);
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

/**
 * Inserts the documents the writes make (`fresh`), each with its later
 * writes folded in, in one round trip; answers the writes left to apply:
 * those to other documents when every one was new. When one was there
 * already (a replay), all of them: each is applied guarded (those to a
 * document just inserted are then found applied).
 */
async function insertFresh(
  store: ReadStore,
  collection: string,
  writes: PositionedWrite[],
): Promise<PositionedWrite[]> {
  const first = new Map<string, PositionedWrite>();
  for (const w of writes) if (!first.has(w.write.id)) first.set(w.write.id, w);
  const fresh = new Set(
    [...first.values()].filter((w) => w.write.fresh && !w.write.once).map((w) => w.write.id),
  );
  for (const w of writes) if (w.write.once) fresh.delete(w.write.id);
  if (fresh.size === 0) return writes;
  const docs = new Map<string, Doc>();
  const rest: PositionedWrite[] = [];
  for (const w of writes) {
    if (!fresh.has(w.write.id)) rest.push(w);
    else docs.set(w.write.id, madeBy(docs.get(w.write.id) ?? null, w));
  }
  const inserted = await store.collection(collection).insertOnce([...docs.values()]);
  return inserted === docs.size ? rest : writes;
}

/** The document as a write leaves it, from none (an upsert's insert) or from what earlier writes made. */
function madeBy(doc: Doc | null, { write, position }: PositionedWrite): Doc {
  return {
    ...updatedDocument(doc ?? { _id: write.id }, write.update, doc === null),
    [POSITION_FIELD]: position,
  };
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
