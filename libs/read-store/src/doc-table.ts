import type { Doc } from './read-store.port';

/** A document and its rank: ranks grow in the table's order, so sorting by rank gives that order. */
interface Entry {
  doc: Doc;
  rank: number;
}

const NO_DOCS: ReadonlyMap<string, Entry> = new Map();

/**
 * Documents by id in a Map's insertion order, with copies that cost what
 * changed rather than what is held: a copy shares a frozen base map (never
 * written again) and keeps its own changes to it beside it. A table whose own
 * changes outgrow a fraction of its base is compacted into a new base when it
 * is copied, so reads never look through more than one layer.
 */
export class DocTable {
  private base: ReadonlyMap<string, Entry> = NO_DOCS;
  /** Ids of the base: their new version, or null once deleted (the base's order is kept). */
  private replaced = new Map<string, Entry | null>();
  /** Ids not in the base (or deleted from it and set again), in the order they were set. */
  private added = new Map<string, Entry>();
  private deleted = 0;
  /** The next id added gets this rank (larger than every rank held). */
  private nextRank = 0;

  /** `slack`: own changes tolerated beyond an eighth of the base before a copy compacts. */
  constructor(private readonly slack = 64) {}

  get size(): number {
    return this.base.size - this.deleted + this.added.size;
  }

  get(id: string): Doc | undefined {
    return this.entry(id)?.doc;
  }

  /** Where the document stands in the table's order: lower ranks come first. */
  rank(id: string): number | undefined {
    return this.entry(id)?.rank;
  }

  private entry(id: string): Entry | undefined {
    const own = this.added.get(id);
    if (own !== undefined) return own;
    if (this.replaced.has(id)) return this.replaced.get(id) ?? undefined;
    return this.base.get(id);
  }

  has(id: string): boolean {
    return this.entry(id) !== undefined;
  }

  set(id: string, doc: Doc): void {
    const own = this.added.get(id);
    if (own !== undefined) this.added.set(id, { doc, rank: own.rank });
    else if (this.base.has(id) && this.replaced.get(id) !== null) {
      this.replaced.set(id, { doc, rank: this.base.get(id)!.rank });
    } else this.added.set(id, { doc, rank: this.nextRank++ });
  }

  delete(id: string): void {
    if (this.added.delete(id)) return;
    if (this.base.has(id) && this.replaced.get(id) !== null) {
      this.replaced.set(id, null);
      this.deleted++;
    }
  }

  clear(): void {
    this.nextRank = 0;
    this.base = NO_DOCS;
    this.replaced = new Map();
    this.added = new Map();
    this.deleted = 0;
  }

  *values(): IterableIterator<Doc> {
    for (const entry of this.entries()) yield entry.doc;
  }

  private *entries(): IterableIterator<Entry> {
    if (this.replaced.size === 0) yield* this.base.values();
    else {
      for (const [id, entry] of this.base) {
        if (!this.replaced.has(id)) yield entry;
        else {
          const current = this.replaced.get(id);
          if (current) yield current;
        }
      }
    }
    yield* this.added.values();
  }

  /** An independent copy: writes to either do not show in the other. */
  copy(): DocTable {
    if (this.replaced.size + this.added.size > this.slack + this.base.size / 8) this.compact();
    const copy = new DocTable(this.slack);
    copy.base = this.base;
    copy.replaced = new Map(this.replaced);
    copy.added = new Map(this.added);
    copy.deleted = this.deleted;
    copy.nextRank = this.nextRank;
    return copy;
  }

  /**
   * Entries this table holds that `seen` does not yet count: its own changes,
   * and its base the first time that base is met (copies share bases).
   */
  weigh(seen: Set<object>): number {
    let n = this.replaced.size + this.added.size;
    if (!seen.has(this.base)) {
      seen.add(this.base);
      n += this.base.size;
    }
    return n;
  }

  /** Folds the own changes into a new base (the old one may be shared, so it is not written). */
  private compact(): void {
    const merged = new Map<string, Entry>();
    for (const entry of this.entries()) merged.set(entry.doc._id, entry);
    this.base = merged;
    this.replaced = new Map();
    this.added = new Map();
    this.deleted = 0;
  }
}
