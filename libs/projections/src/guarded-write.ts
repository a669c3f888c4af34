import { DuplicateKeyError, ReadStore } from '../../read-store/src/read-store.port';
import type { DocWrite } from './projection';

/** Field on every projected document: the global position of the last event applied to it. */
export const POSITION_FIELD = '_pos';

/**
 * Applies a write only if the document has not yet seen this position. A crash
 * between a write and the checkpoint therefore never applies an event twice,
 * with no multi-document transaction.
 * Returns false when the write had already been applied.
 */
export async function applyOnce(store: ReadStore, write: DocWrite, position: number): Promise<boolean> {
  const update = { ...write.update, $set: { ...(write.update.$set ?? {}), [POSITION_FIELD]: position } };
  const collection = store.collection(write.collection);
  try {
    const r = await collection.updateOne({ _id: write.id, [POSITION_FIELD]: { $lt: position } }, update, {
      upsert: true,
    });
    return r.matched > 0 || r.upserted;
  } catch (error) {
    // The upsert found no document below this position; if one exists at or
    // above it, the write was applied before.
    if (error instanceof DuplicateKeyError) {
      const existing = await collection.findOne({ _id: write.id });
      if (existing && (existing[POSITION_FIELD] as number) >= position) return false;
    }
    throw error;
  }
}
