import type { Doc } from './read-store.port';

const NO_DOCS: ReadonlyMap<string, Doc> = new Map();

/**
 * Documents by id in a Map's insertion order, with copies that cost what
 * changed rather than what is held: a copy shares a frozen base map (never
 * written again) and keeps its own changes to it beside it. A table whose own
 * changes outgrow a fraction of its base is compacted into a new base when it
 * is copied, so reads never look through more than one layer.
 */
export class DocTable {
  private base: ReadonlyMap<string, Doc> = NO_DOCS;
  /** Ids of the base: their new version, or null once deleted (the base's order is kept). */
  private replaced = new Map<string, Doc | null>();
  /** Ids not in the base (or deleted from it and set again), in the order they were set. */
  private added = new Map<string, Doc>();
  private deleted = 0;

  /** `slack`: own changes tolerated beyond an eighth of the base before a copy compacts. */
  constructor(private readonly slack = 64) {}

  get size(): number {
    return this.base.size - this.deleted + this.added.size;
  }

  get(id: string): Doc | undefined {
    const own = this.added.get(id);
    if (own !== undefined) return own;
    if (this.replaced.has(id)) return this.replaced.get(id) ?? undefined;
    return this.base.get(id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, doc: Doc): void {
    if (this.added.has(id)) this.added.set(id, doc);
    else if (this.base.has(id) && this.replaced.get(id) !== null) this.replaced.set(id, doc);
    else this.added.set(id, doc);
  }

  delete(id: string): void {
    if (this.added.delete(id)) return;
    if (this.base.has(id) && this.replaced.get(id) !== null) {
      this.replaced.set(id, null);
      this.deleted++;
    }
  }

  clear(): void {
    this.base = NO_DOCS;
    this.replaced = new Map();
    this.added = new Map();
    this.deleted = 0;
  }

  *values(): IterableIterator<Doc> {
    if (this.replaced.size === 0) yield* this.base.values();
    else {
      for (const [id, doc] of this.base) {
        if (!this.replaced.has(id)) yield doc;
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
    const merged = new Map<string, Doc>();
    for (const doc of this.values()) merged.set(doc._id, doc);
    this.base = merged;
    this.replaced = new Map();
    this.added = new Map();
    this.deleted = 0;
  }
}
