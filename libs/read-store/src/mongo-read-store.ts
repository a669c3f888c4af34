import { MongoBlobs } from './mongo-blobs';
import {
  Db,
  MongoAPIError,
  MongoBulkWriteError,
  MongoClient,
  MongoClientClosedError,
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Document,
} from 'mongodb';
import { StoreUnavailableError } from '#des/event-store';
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
import { TenantReadGate } from './tenant-read-gate';

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
/**
 * Ops per bulkWrite command. FerretDB v1 (the test server here) stalls on an
 * ordered bulk of 100 or more updates although it advertises 100,000; 50 is
 * one round trip for most projector flushes either way.
 */
const BULK_CHUNK = 50;

export interface MongoReadStoreOptions {
  url: string;
  /** Defaults to the database named in the URL, else `des`. */
  database?: string;
  serverSelectionTimeoutMs?: number;
  /** Queries made on an organization's behalf wait their turn here (none: no cap). */
  gate?: TenantReadGate;
}

/** Read models in MongoDB (or a MongoDB-wire server such as FerretDB), official driver. */
export class MongoReadStore implements ReadStore {
  readonly kind = 'mongodb' as const;
  private readonly client: MongoClient;
  private readonly db: Db;
  private readonly gate: TenantReadGate;

  constructor(options: MongoReadStoreOptions) {
    this.gate = options.gate ?? new TenantReadGate(0);
    this.client = new MongoClient(options.url, {
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 3000,
      ignoreUndefined: true,
    });
    this.db = this.client.db(options.database);
  }

  async connect(): Promise<this> {
    await guard(() => this.client.connect());
    return this;
  }

  /** Files shared by every process (GridFS in this database): attachments in server mode. */
  blobs(bucketName: string): MongoBlobs {
    return new MongoBlobs(this.db, bucketName);
  }

  collection<T extends Doc = Doc>(name: string): ReadCollection<T> {
    return new MongoCollection(this.db, name, this.gate) as unknown as ReadCollection<T>;
  }

  /**
   * Creates the indexes not there yet. (FerretDB v1 panics when asked to
   * create an index that exists, so existing ones are never re-sent.)
   */
  async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    if (indexes.length === 0) return;
    const existing = new Set((await this.existingIndexes(collection)).map((i) => i.name));
    const missing = indexes.filter((i) => !existing.has(i.name));
    if (missing.length === 0) return;
    await guard(() =>
      this.db
        .collection(collection)
        .createIndexes(
          missing.map((i) => ({ key: i.keys, name: i.name, ...(i.unique ? { unique: true } : {}) })),
        ),
    );
  }

  private async existingIndexes(collection: string): Promise<{ name: string }[]> {
    try {
      return (await this.db.collection(collection).indexes()) as { name: string }[];
    } catch (error) {
      if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return [];
      throw translate(error);
    }
  }

  async dropCollection(name: string): Promise<void> {
    const existing = await this.listCollections();
    if (existing.includes(name)) await guard(() => this.db.collection(name).drop());
  }

  async listCollections(): Promise<string[]> {
    const list = await guard(() => this.db.listCollections({}, { nameOnly: true }).toArray());
    return list.map((c) => c.name);
  }

  async ping(): Promise<void> {
    await guard(() => this.db.command({ ping: 1 }));
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

class MongoCollection implements ReadCollection<Doc> {
  constructor(
    private readonly db: Db,
    private readonly name: string,
    private readonly gate: TenantReadGate,
  ) {}

  private get c() {
    return this.db.collection<Doc>(this.name);
  }

  async findOne(filter: Filter): Promise<Doc | null> {
    return this.gate.run(() => guard(() => this.c.findOne(filter))) as Promise<Doc | null>;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    return this.gate.run(() => guard(() => this.cursor(filter, options).toArray())) as Promise<Doc[]>;
  }

  async *stream(filter: Filter, options: FindOptions = {}): AsyncIterable<Doc> {
    const release = await this.gate.acquire();
    const cursor = this.cursor(filter, options);
    try {
      for await (const doc of cursor) yield doc as Doc;
    } catch (error) {
      throw translate(error);
    } finally {
      release();
      await cursor.close();
    }
  }

  private cursor(filter: Filter, options: FindOptions) {
    let cursor = this.c.find(filter as Document);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    if (options.projection) cursor = cursor.project(options.projection);
    return cursor;
  }

  async count(filter: Filter): Promise<number> {
    return this.gate.run(() => guard(() => this.c.countDocuments(filter)));
  }

  async findPage(filter: Filter, options: FindOptions): Promise<Page<Doc>> {
    const [total, docs] = await Promise.all([this.count(filter), this.find(filter, options)]);
    return { total, docs };
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    try {
      const r = await this.c.updateOne(filter, update, { upsert: options.upsert ?? false });
      return { matched: r.matchedCount, modified: r.modifiedCount, upserted: r.upsertedCount > 0 };
    } catch (error) {
      throw this.translateWrite(error);
    }
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    try {
      const r = await this.c.updateMany(filter, update);
      return { matched: r.matchedCount, modified: r.modifiedCount, upserted: false };
    } catch (error) {
      throw this.translateWrite(error);
    }
  }

  async bulkUpdate(ops: BulkUpdate[]): Promise<BulkOutcome> {
    for (let offset = 0; offset < ops.length; offset += BULK_CHUNK) {
      const outcome = await this.bulkChunk(ops.slice(offset, offset + BULK_CHUNK));
      if (outcome.failedAt !== undefined) return { ...outcome, failedAt: offset + outcome.failedAt };
    }
    return {};
  }

  private async bulkChunk(ops: BulkUpdate[]): Promise<BulkOutcome> {
    try {
      await this.c.bulkWrite(
        ops.map((op) => ({
          updateOne: { filter: op.filter, update: op.update, upsert: op.upsert ?? false },
        })),
        { ordered: true },
      );
      return {};
    } catch (error) {
      if (error instanceof MongoBulkWriteError) {
        const [first] = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
        if (first?.code === DUPLICATE_KEY) {
          return { failedAt: first.index, error: new DuplicateKeyError(this.name, 'unknown') };
        }
      }
      throw this.translateWrite(error);
    }
  }

  /**
   * insertMany, unordered: FerretDB's SQLite backend inserts through its `_id`
   * index, where every update or upsert reads the whole collection.
   */
  async insertOnce(docs: Doc[]): Promise<number> {
    let inserted = 0;
    for (let offset = 0; offset < docs.length; offset += BULK_CHUNK) {
      const chunk = docs.slice(offset, offset + BULK_CHUNK);
      try {
        inserted += (await this.c.insertMany(chunk, { ordered: false })).insertedCount;
      } catch (error) {
        if (!(error instanceof MongoBulkWriteError)) throw this.translateWrite(error);
        const refused = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
        for (const w of refused) {
          if (w.code !== DUPLICATE_KEY) throw this.translateWrite(error);
          // Already there by `_id` (a replay), or refused by another unique index (real).
          const doc = chunk[w.index];
          if (!(await this.findOne({ _id: doc._id }))) throw new DuplicateKeyError(this.name, 'unknown');
        }
        inserted += error.insertedCount ?? chunk.length - refused.length;
      }
    }
    return inserted;
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await guard(() => this.c.deleteMany(filter))).deletedCount;
  }

  private translateWrite(error: unknown): Error {
    if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) {
      const index = /index: (\S+)/.exec(error.message)?.[1] ?? 'unknown';
      return new DuplicateKeyError(this.name, index);
    }
    return translate(error);
  }
}

async function guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw translate(error);
  }
}

/**
 * Server error codes that say "not now, retry" (the driver's retryable-read and
 * retryable-write codes: the node is not a writable primary, is recovering or
 * shutting down, the network failed or timed out), plus a write concern that
 * timed out while the replica set catches up.
 */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  64, // WriteConcernTimeout (WriteConcernFailed before 8.1)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Labels the driver or the server put on errors a retry can outlive. */
const UNAVAILABLE_LABELS: string[] = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.ResetPool,
  MongoErrorLabel.PoolRequstedRetry,
  MongoErrorLabel.InterruptInUseConnections,
  MongoErrorLabel.TransientTransactionError,
  'SystemOverloadedError', // newer servers and drivers
  'RetryableError',
];

/**
 * Driver classes not exported by the driver (connection-pool errors): a pool
 * closed with its client, and a connection check-out that timed out. (Pool
 * cleared errors are MongoNetworkErrors.)
 */
const UNAVAILABLE_NAMES = new Set(['MongoPoolClosedError', 'MongoWaitQueueTimeoutError']);

const LEGACY_UNAVAILABLE_MESSAGE = /not master|node is recovering/i;

/**
 * Whether a driver error means MongoDB cannot be reached or cannot take the
 * operation right now (a retry later can succeed): network errors including
 * a cleared connection pool, server selection, a stepped-down or recovering
 * primary, a closed client, and whatever the driver or the server labels
 * retryable. Not a refused write (duplicate key, validation), nor a bad query.
 */
export function isMongoUnavailable(error: unknown): boolean {
  if (!(error instanceof MongoError)) return false;
  if (
    error instanceof MongoNetworkError || // includes MongoPoolClearedError and network timeouts
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoOperationTimeoutError ||
    UNAVAILABLE_NAMES.has(error.name)
  ) {
    return true;
  }
  if (UNAVAILABLE_LABELS.some((label) => error.hasErrorLabel(label))) return true;
  if (typeof error.code === 'number' && UNAVAILABLE_CODES.has(error.code)) return true;
  if (error instanceof MongoServerError) {
    const concern = (error.errorResponse as { writeConcernError?: { code?: unknown } }).writeConcernError;
    if (typeof concern?.code === 'number' && UNAVAILABLE_CODES.has(concern.code)) return true;
  }
  return !(error instanceof MongoAPIError) && LEGACY_UNAVAILABLE_MESSAGE.test(error.message);
}

/** Outages become StoreUnavailableError (answered 503 with Retry-After); other errors pass through. */
export function translateMongoError(error: unknown): Error {
  if (isMongoUnavailable(error)) return new StoreUnavailableError('MongoDB', error);
  return error instanceof Error ? error : new Error(String(error));
}

const translate = translateMongoError;
