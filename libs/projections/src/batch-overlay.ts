import { type Doc, updatedDocument } from '#des/read-store';
import { created, POSITION_FIELD, type PositionedWrite } from './guarded-write';

/** A document read during a batch: as the store had it, and as the batch's writes so far leave it. */
interface Known {
  base: Doc | null;
  doc: Doc | null;
}

const keyOf = (collection: string, id: string) => `${collection}\u0000${id}`;

/**
 * A document as the store will have it once a guarded write lands: the write
 * is skipped when the document has already seen its position, as the store's
 * guard skips it.
 */
export function appliedLocally(doc: Doc | null, positioned: PositionedWrite): Doc | null {
  const { write, position } = positioned;
  if (doc && (doc[POSITION_FIELD] as number) >= position) return doc;
  if (write.once) return doc ?? created(positioned);
  const next = updatedDocument(doc ?? { _id: write.id }, write.update, doc === null);
  return { ...next, [POSITION_FIELD]: position };
}

/**
 * What a projector batch knows of the documents its projections read: a
 * projection that reads a document it wrote earlier in the batch sees its
 * writes without a flush, and the writes to such a document go to the store
 * as one (the document as they leave it), not one per event. A trail's
 * document written by 500 events of a batch is then one write.
 */
export class BatchOverlay {
  private readonly known = new Map<string, Known>();

  /** The document as the batch leaves it so far; undefined when not read in this batch. */
  get(collection: string, id: string): Doc | null | undefined {
    return this.known.get(keyOf(collection, id))?.doc;
  }

  /** A document read from the store, with the batch's writes to it not yet sent applied. */
  load(collection: string, id: string, stored: Doc | null, pending: PositionedWrite[]): Doc | null {
    let doc = stored;
    for (const w of pending) {
      if (w.write.collection === collection && w.write.id === id) doc = appliedLocally(doc, w);
    }
    this.known.set(keyOf(collection, id), { base: stored, doc });
    return doc;
  }

  /** A write joins the batch: a document read before follows it. */
  written(w: PositionedWrite): void {
    const known = this.known.get(keyOf(w.write.collection, w.write.id));
    if (known) known.doc = appliedLocally(known.doc, w);
  }

  /**
   * The pending writes with those to each document read in the batch
   * replaced by one: its fields as they leave it (and the removal of the
   * fields they removed), at the last one's place and position.
   */
  coalesce<W extends PositionedWrite>(pending: W[]): W[] {
    const last = new Map<string, number>();
    pending.forEach((w, i) => {
      const key = keyOf(w.write.collection, w.write.id);
      if (!w.write.once && this.known.has(key)) last.set(key, i);
    });
    if (last.size === 0) return pending;
    const out: W[] = [];
    pending.forEach((w, i) => {
      const key = keyOf(w.write.collection, w.write.id);
      const at = last.get(key);
      if (at === undefined) out.push(w);
      else if (at === i) {
        const { base, doc } = this.known.get(key)!;
        if (doc) out.push({ ...w, write: { ...w.write, update: wholeDocument(base, doc) } });
      }
    });
    return out;
  }

  clear(): void {
    this.known.clear();
  }
}

function wholeDocument(base: Doc | null, doc: Doc): Record<string, Record<string, unknown>> {
  const { _id, [POSITION_FIELD]: _pos, ...fields } = doc;
  void _id;
  void _pos;
  const removed = Object.keys(base ?? {}).filter((k) => k !== '_id' && k !== POSITION_FIELD && !(k in doc));
  return removed.length
    ? { $set: fields, $unset: Object.fromEntries(removed.map((k) => [k, ''])) }
    : { $set: fields };
}
