/** A read-model document: `_id` is always a string chosen by the projection. */
export interface Doc {
  _id: string;
  [field: string]: unknown;
}

/** A MongoDB query filter (the subset both adapters understand). */
export type Filter = Record<string, unknown>;
/** MongoDB update operators: $set, $unset, $inc, $push, $addToSet, $pull, $max, $min, $setOnInsert. */
export type Update = Record<string, Record<string, unknown>>;
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  projection?: Record<string, 0 | 1>;
}

/** A page of a query's matches, and the number of all its matches. */
export interface Page<T extends Doc = Doc> {
  total: number;
  docs: T[];
}

export interface UpdateResult {
  matched: number;
  modified: number;
  upserted: boolean;
}

export interface IndexSpec {
  name: string;
  keys: Record<string, 1 | -1>;
  unique?: boolean;
}

export interface ReadCollection<T extends Doc = Doc> {
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** Streams matches in sort order without holding them all in memory. */
  stream(filter: Filter, options?: FindOptions): AsyncIterable<T>;
  count(filter: Filter): Promise<number>;
  /** One page of the matches (`find` with the options) and how many match in all (`count`), from one selection where the engine can. */
  findPage(filter: Filter, options: FindOptions): Promise<Page<T>>;
  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  deleteMany(filter: Filter): Promise<number>;
  /**
   * Applies updates in order, in as few round trips as the engine allows.
   * Stops at the first refused write and reports it: the caller decides
   * whether to resume after it.
   */
  bulkUpdate(ops: BulkUpdate[]): Promise<BulkOutcome>;
  /**
   * Inserts the documents whose `_id` is not there yet, in as few round trips
   * as the engine allows; one already there is left as it is (for documents
   * written once and never changed, a second insert is a replay). Answers how
   * many were inserted. A unique index on another key refusing one throws
   * DuplicateKeyError (the others may have been inserted).
   */
  insertOnce(docs: T[]): Promise<number>;
  /**
   * A mark that changes whenever the collection's documents change, where the
   * engine can tell at no cost (held in this process); absent where it cannot
   * (a shared server, whose other writers this process does not see).
   */
  changeMark?(): number;
}

export interface BulkUpdate {
  filter: Filter;
  update: Update;
  upsert?: boolean;
}

/**
 * Absent `failedAt`: every op applied. Otherwise a unique index refused an op
 * at or after `failedAt`: every op before `failedAt` applied, none after the
 * refused one did, and those between may have (FerretDB v1 reports index 0 of
 * the failing command), so only idempotent ops may be resubmitted from there.
 */
export interface BulkOutcome {
  failedAt?: number;
  error?: DuplicateKeyError;
}

/** Read models. Adapters: in-memory collections queried with mingo, and MongoDB. */
export interface ReadStore {
  readonly kind: 'memory' | 'mongodb';
  collection<T extends Doc = Doc>(name: string): ReadCollection<T>;
  /** Declares a collection's indexes; idempotent. */
  ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void>;
  dropCollection(name: string): Promise<void>;
  listCollections(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A unique index (including `_id`) refused a write. */
export class DuplicateKeyError extends Error {
  constructor(
    readonly collection: string,
    readonly index: string,
  ) {
    super(`Duplicate key in ${collection} (index ${index})`);
    this.name = 'DuplicateKeyError';
  }
}
