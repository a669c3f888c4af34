import { Query } from 'mingo';
import { DocTable } from './doc-table';
import { EqualityIndex } from './equality-index';
import { nativeSort } from './native-sort';
import { deepUpdate, shallowUpdate } from './document-update';
import { compileSimpleFilter } from './simple-filter';
import {
  BulkOutcome,
  BulkUpdate,
  Doc,
  DuplicateKeyError,
  Filter,
  FindOptions,
  IndexSpec,
  Page,
  ReadCollection,
  ReadStore,
  Update,
  UpdateResult,
} from './read-store.port';

type AnyObject = Record<string, unknown>;

/** The embedded read store: collections in memory, queried with mingo (MongoDB's query language). */
export class MemoryReadStore implements ReadStore {
  readonly kind = 'memory' as const;
  private readonly collections = new Map<string, MemoryCollection>();

  collection<T extends Doc = Doc>(name: string): ReadCollection<T> {
    let c = this.collections.get(name);
    if (!c) {
      c = new MemoryCollection(name);
      this.collections.set(name, c);
    }
    return c as unknown as ReadCollection<T>;
  }

  async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    (this.collection(collection) as unknown as MemoryCollection).declare(indexes);
  }

  /** Empties the collection in place, so handles taken before the drop stay valid. */
  async dropCollection(name: string): Promise<void> {
    this.collections.get(name)?.clear();
  }

  async listCollections(): Promise<string[]> {
    return [...this.collections.entries()].filter(([, c]) => c.exists).map(([name]) => name);
  }

  /**
   * An independent copy that shares the (frozen, never mutated) documents:
   * its cost is what changed since the last compaction (see DocTable), not
   * what is held. Writes to either store do not show in the other.
   */
  fork(): MemoryReadStore {
    const copy = new MemoryReadStore();
    for (const [name, collection] of this.collections) copy.collections.set(name, collection.fork());
    return copy;
  }

  /** Documents held, all collections together. */
  get size(): number {
    let n = 0;
    for (const c of this.collections.values()) n += c.size;
    return n;
  }

  /** Entries held that `seen` does not count yet: forks share most of theirs, so a set of forks weighs them once. */
  weigh(seen: Set<object>): number {
    let n = 0;
    for (const c of this.collections.values()) n += c.weigh(seen);
    return n;
  }

  /**
   * Every collection's documents (in their order) and declared indexes, in
   * chunks of at most `chunkSize` documents: what `importChunk` takes back.
   * A chunk is serialized in one go while requests wait: 5,000 documents of a
   * tenant with large trails took 68–113 ms each, 256 take a few.
   * Read from a fork, so writes made between chunks do not show.
   */
  *exportChunks(chunkSize = 256): IterableIterator<MemoryChunk> {
    const frozen = this.fork();
    for (const [name, collection] of frozen.collections) {
      if (!collection.exists) continue;
      let docs: Doc[] = [];
      let first = true;
      for (const doc of collection.all()) {
        docs.push(doc);
        if (docs.length === chunkSize) {
          yield { collection: name, indexes: first ? collection.declaredIndexes() : [], docs };
          first = false;
          docs = [];
        }
      }
      if (first || docs.length > 0)
        yield { collection: name, indexes: first ? collection.declaredIndexes() : [], docs };
    }
  }

  /** Adds a chunk of `exportChunks` (documents after those of earlier chunks). */
  importChunk(chunk: MemoryChunk): void {
    const collection = this.collection(chunk.collection) as unknown as MemoryCollection;
    collection.declare(chunk.indexes);
    collection.load(chunk.docs);
  }

  /** Empties every collection (in place: handles stay valid). */
  clear(): void {
    for (const c of this.collections.values()) c.clear();
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}

/** Part of a collection, as `MemoryReadStore.exportChunks` gives it. */
export interface MemoryChunk {
  collection: string;
  indexes: IndexSpec[];
  docs: Doc[];
}

/** A large collection builds its indexes once this many queries could use them (a fork may be read once, then dropped). */
const QUERIES_BEFORE_BUILD = 2;
const SMALL = 1000;

/** The source of change marks, shared by every collection: a mark is never reused, even by a new collection. */
let lastMark = 0;

class MemoryCollection implements ReadCollection<Doc> {
  private mark = ++lastMark;
  private readonly declared: IndexSpec[] = [];
  private readonly unique: IndexSpec[] = [];
  /** Leading keys of the declared indexes: each gets an EqualityIndex, built when first worth it. */
  private readonly indexedPaths: string[][] = [];
  private indexes?: EqualityIndex[];
  private wantedIndexes = 0;

  constructor(
    private readonly name: string,
    private readonly docs = new DocTable(),
  ) {}

  get exists(): boolean {
    return this.docs.size > 0 || this.unique.length > 0;
  }

  get size(): number {
    return this.docs.size;
  }

  /** A copy shares the documents; its indexes are its own, built when it is queried enough. */
  fork(): MemoryCollection {
    const copy = new MemoryCollection(this.name, this.docs.copy());
    copy.declared.push(...this.declared);
    copy.unique.push(...this.unique);
    copy.indexedPaths.push(...this.indexedPaths);
    return copy;
  }

  weigh(seen: Set<object>): number {
    return this.docs.weigh(seen);
  }

  clear(): void {
    this.mark = ++lastMark;
    this.docs.clear();
    this.declared.length = 0;
    this.unique.length = 0;
    this.indexedPaths.length = 0;
    this.indexes = undefined;
  }

  declaredIndexes(): IndexSpec[] {
    return [...this.declared];
  }

  all(): IterableIterator<Doc> {
    return this.docs.values();
  }

  /** Documents as they were exported: frozen here, keyed by `_id`, after those held. */
  load(docs: Doc[]): void {
    for (const doc of docs) this.store(doc._id, deepFreeze(doc));
  }

  declare(indexes: IndexSpec[]): void {
    for (const index of indexes) {
      if (this.declared.some((d) => d.name === index.name)) continue;
      this.declared.push(index);
      if (index.unique && !this.unique.some((u) => u.name === index.name)) this.unique.push(index);
      // Equality lookups on the index's first field, and on its first two together.
      const keys = Object.keys(index.keys);
      if (keys[0] === '_id') continue;
      for (const paths of [keys.slice(0, 1), keys.slice(0, 2)]) {
        if (this.indexedPaths.some((p) => p.join() === paths.join())) continue;
        this.indexedPaths.push(paths);
        this.indexes?.push(this.built(paths));
      }
    }
  }

  private built(paths: string[]): EqualityIndex {
    const index = new EqualityIndex(paths);
    for (const doc of this.docs.values()) index.add(doc);
    return index;
  }

  /** The indexes, built now if the collection is small or they were wanted before; else undefined (scan). */
  private usableIndexes(): EqualityIndex[] | undefined {
    if (this.indexes) return this.indexes;
    if (this.indexedPaths.length === 0) return undefined;
    if (this.docs.size > SMALL && ++this.wantedIndexes < QUERIES_BEFORE_BUILD) return undefined;
    this.indexes = this.indexedPaths.map((paths) => this.built(paths));
    return this.indexes;
  }

  /** Sets a document, keeping the built indexes right. */
  private store(id: string, doc: Doc): void {
    this.mark = ++lastMark;
    if (this.indexes) {
      const old = this.docs.get(id);
      for (const index of this.indexes) {
        if (old) index.remove(old);
        index.add(doc);
      }
    }
    this.docs.set(id, doc);
  }

  private remove(doc: Doc): void {
    this.mark = ++lastMark;
    if (this.indexes) for (const index of this.indexes) index.remove(doc);
    this.docs.delete(doc._id);
  }

  changeMark(): number {
    return this.mark;
  }

  async findOne(filter: Filter): Promise<Doc | null> {
    const [doc] = this.query(filter, { limit: 1 });
    return doc ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    return this.query(filter, options);
  }

  /** Yields stored (frozen) documents in order: an export holds references, never copies. */
  async *stream(filter: Filter, options: FindOptions = {}): AsyncIterable<Doc> {
    yield* this.ordered(filter, options);
  }

  async count(filter: Filter): Promise<number> {
    return this.select(filter, undefined, false).length;
  }

  async findPage(filter: Filter, options: FindOptions): Promise<Page<Doc>> {
    const matches = this.select(filter);
    return { total: matches.length, docs: this.arranged(matches, options) };
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    const [current] = this.select(filter, 1);
    if (current) return this.replaceWith(current, update, false);
    if (!options.upsert) return { matched: 0, modified: 0, upserted: false };
    const seed = equalityFields(filter);
    if (typeof seed._id !== 'string') throw new Error('upsert needs an _id equality in the filter');
    if (this.docs.has(seed._id)) throw new DuplicateKeyError(this.name, '_id_');
    return this.replaceWith(seed as Doc, update, true);
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    let modified = 0;
    const matches = this.select(filter);
    for (const doc of matches) modified += (await this.replaceWith(doc, update, false)).modified;
    return { matched: matches.length, modified, upserted: false };
  }

  async bulkUpdate(ops: BulkUpdate[]): Promise<BulkOutcome> {
    for (const [i, op] of ops.entries()) {
      try {
        await this.updateOne(op.filter, op.update, { upsert: op.upsert });
      } catch (error) {
        if (error instanceof DuplicateKeyError) return { failedAt: i, error };
        throw error;
      }
    }
    return {};
  }

  async insertOnce(docs: Doc[]): Promise<number> {
    let inserted = 0;
    for (const { _id, ...fields } of docs) {
      if (this.docs.has(_id)) continue;
      await this.replaceWith({ _id }, { $set: fields }, true);
      inserted++;
    }
    return inserted;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const matches = this.select(filter);
    for (const doc of matches) this.remove(doc);
    return matches.length;
  }

  /**
   * With an `_id` equality only that document is a candidate; with an
   * equality on an indexed field, those the index finds (the fewest, if
   * several), in the collection's order unless `ordered` is false (a count);
   * otherwise all are.
   */
  private candidates(filter: Filter, ordered = true): Iterable<Doc> {
    const id = filter._id;
    if (typeof id === 'string') {
      const doc = this.docs.get(id);
      return doc ? [doc] : [];
    }
    const ids = idsIn(id);
    if (ids) return ordered ? this.inOrder(ids) : this.docsOf(ids);
    if (this.indexedPaths.some(([first]) => first in filter)) {
      let narrowest: EqualityIndex | undefined;
      let fewest = Infinity;
      for (const index of this.usableIndexes() ?? []) {
        const n = index.estimate(filter);
        if (n !== undefined && n < fewest) [narrowest, fewest] = [index, n];
      }
      if (narrowest) {
        const ids = narrowest.candidates(filter)!;
        return ordered ? this.inOrder(ids) : this.docsOf(ids);
      }
    }
    return this.docs.values();
  }

  private docsOf(ids: ReadonlySet<string>): Doc[] {
    const docs: Doc[] = [];
    for (const id of ids) {
      const doc = this.docs.get(id);
      if (doc) docs.push(doc);
    }
    return docs;
  }

  /** The documents of `ids` in the collection's order: each rank looked up once, not once per comparison. */
  private inOrder(ids: ReadonlySet<string>): Doc[] {
    const ranked: { doc: Doc; rank: number }[] = [];
    for (const id of ids) {
      const doc = this.docs.get(id);
      if (doc) ranked.push({ doc, rank: this.docs.rank(id)! });
    }
    if (ranked.length > 1) ranked.sort((a, b) => a.rank - b.rank);
    return ranked.map((r) => r.doc);
  }

  /** Live documents (not copies) matching a filter: the fast path where it can judge, mingo otherwise. */
  private select(filter: Filter, limit?: number, ordered = true): Doc[] {
    const candidates = this.candidates(filter, ordered);
    const simple = compileSimpleFilter(filter);
    let query: Query | undefined;
    const out: Doc[] = [];
    for (const doc of candidates) {
      const verdict = simple?.(doc);
      if (verdict === false) continue;
      if (verdict === undefined && !(query ??= new Query(filter)).test(doc)) continue;
      out.push(doc);
      if (limit !== undefined && out.length === limit) break;
    }
    return out;
  }

  /** Stored documents are deep-frozen, so they are returned as they are: nothing a caller does can change the store. */
  private query(filter: Filter, options: FindOptions): Doc[] {
    return this.ordered(filter, options);
  }

  /**
   * Matches in order, as live documents (never mutated in place: updates swap
   * in a new object), or projected copies.
   */
  private ordered(filter: Filter, options: FindOptions): Doc[] {
    const unordered = !options.sort && !options.skip && !options.projection;
    if (unordered) return this.select(filter, options.limit || undefined);
    return this.arranged(this.select(filter), options);
  }

  /** Matches (in the collection's order) sorted, paged and projected as asked. */
  private arranged(matches: Doc[], options: FindOptions): Doc[] {
    const from = options.skip ?? 0;
    const to = options.limit ? from + options.limit : undefined;
    if (!options.sort && !options.projection) return matches.slice(from, to);
    if (options.sort && !options.projection) {
      const sorted = nativeSort(matches, options.sort);
      if (sorted) return sorted.slice(from, to);
    }
    let cursor = MATCH_ALL.find(matches, options.projection);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return cursor.all() as Doc[];
  }

  /** Applies the update to a copy, checks unique indexes, then swaps it in: all or nothing. */
  private async replaceWith(doc: Doc, update: Update, inserting: boolean): Promise<UpdateResult> {
    const shallow = shallowUpdate(doc, update, inserting);
    const { next, changed } = shallow ?? deepUpdate(doc, update, inserting);
    if (next._id !== doc._id) throw new Error('an update cannot change _id');
    this.checkUnique(next as Doc);
    this.store(doc._id, deepFreeze(next) as Doc);
    return { matched: inserting ? 0 : 1, modified: !inserting && changed ? 1 : 0, upserted: inserting };
  }

  private checkUnique(candidate: Doc): void {
    for (const index of this.unique) {
      const paths = Object.keys(index.keys);
      const key = paths.map((k) => JSON.stringify(getPath(candidate, k)));
      // Only documents with the same key can clash: the indexes on its leading fields name them.
      const same = this.candidates(Object.fromEntries(paths.map((k) => [k, getPath(candidate, k) ?? null])));
      for (const other of same) {
        if (other._id === candidate._id) continue;
        const otherKey = Object.keys(index.keys).map((k) => JSON.stringify(getPath(other, k)));
        if (otherKey.every((v, i) => v === key[i])) throw new DuplicateKeyError(this.name, index.name);
      }
    }
  }
}

/** The fields an upsert copies from its filter into the new document (plain equalities). */
function equalityFields(filter: Filter): AnyObject {
  const seed: AnyObject = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key.startsWith('$')) continue;
    const isOperator =
      value !== null && typeof value === 'object' && Object.keys(value).some((k) => k.startsWith('$'));
    if (!isOperator && !key.includes('.')) seed[key] = value;
  }
  return seed;
}

/** One compiled match-everything query, reused for sorting and projecting (compiling one is costly in mingo). */
const MATCH_ALL = new Query({});

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function getPath(doc: AnyObject, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as AnyObject | undefined)?.[k], doc);
}

/** The ids of `{ _id: { $in: [...] } }` when all are strings (each looked up, not every document tested); else undefined. */
function idsIn(condition: unknown): ReadonlySet<string> | undefined {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return undefined;
  const keys = Object.keys(condition);
  const operand = (condition as { $in?: unknown }).$in;
  if (keys.length !== 1 || !Array.isArray(operand) || !operand.every((v) => typeof v === 'string'))
    return undefined;
  return new Set(operand as string[]);
}
