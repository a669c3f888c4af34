/** Who caused an event, and why: carried with every appended event. */
export interface EventMetadata {
  org?: string;
  actor?: { kind: 'user' | 'service_account' | 'system'; name: string };
  correlation_id?: string;
  causation_id?: string;
  [key: string]: unknown;
}

export interface EventToAppend {
  /** Unique id; appending the same ids again is a no-op (idempotent append). */
  id: string;
  /** Stable snake_case name, never a class name. */
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface StoredEvent extends EventToAppend {
  stream: string;
  /** 0-based position of the event inside its stream. */
  revision: number;
  /** Position in the one global log: strictly increasing. */
  position: number;
  /** Commit instant in microseconds since the epoch: never decreases along `position`. */
  recordedAt: number;
  /**
   * The bytes the store counted for the event when it was appended (as
   * `maxAppendSize` counts them), where it knows them without serializing the
   * event again (SQLite). `eventSize` falls back to counting.
   */
  size?: number;
}

export interface AppendOptions {
  /**
   * Called with the append's size (as `maxAppendSize` counts it, from the text
   * the store writes) before anything is written: a throw refuses the append,
   * with that error, and nothing is appended. Lets a caller hold the write to a
   * quota without serializing the events a second time.
   */
  admit?(bytes: number): void;
}

/** A stream revision (0-based, of its last event), or a condition on the stream. */
export type ExpectedRevision = number | 'no_stream' | 'stream_exists' | 'any';

export interface AppendResult {
  /** Revision of the last event appended (the stream's new revision). */
  nextRevision: number;
  /** Global position of the last event appended. */
  position: number;
  /**
   * The commit instant of the last event appended, in whole microseconds, as the
   * store recorded it (what `readStream` returns for it). See each adapter for how.
   */
  recordedAt: number;
}

export interface LogHead {
  position: number;
  recordedAt: number;
}

export interface ReadStreamOptions {
  fromRevision?: number;
  /** Time travel: only events recorded at or before this instant (microseconds). */
  untilRecordedAt?: number;
  /**
   * Only events at or before this global position: pins a read to a log head,
   * so an event recorded later within the same clock tick never leaks in.
   */
  untilPosition?: number;
  /** At most this many events (from `fromRevision` on): one page of a long stream. */
  maxCount?: number;
}

export interface Following {
  stop(): Promise<void>;
}

export interface FollowOptions {
  batchSize?: number;
  /** Called when the handler or a read fails; the follower retries from its last good position. */
  onError?: (error: unknown) => void;
  retryDelayMs?: number;
}

export type BatchHandler = (events: StoredEvent[]) => Promise<void>;

/**
 * What the store's reads have cost since it was opened: the delta over one
 * read is that read's cost. Counted where the store reads, not estimated.
 */
export interface ReadStats {
  /**
   * Records read from storage by `readStream`, `readStreamsByPrefix` and
   * `readAll`. SQLite: the index entries its queries visited (a query the
   * planner would answer by scanning the table counts every row) and the rows
   * it then fetched. KurrentDB: every record the server sent (a resolved link
   * of the scope index counts twice, itself and its event); the adapter asks
   * the server to filter out nothing but system records (the index's links).
   */
  recordsRead: number;
}

export interface KeepIndexOptions {
  /** Called when a pass fails; the next pass, after pollMs, retries from the index's checkpoint. */
  onError?: (error: unknown) => void;
  /** How long between two passes over what was appended (KurrentDB; default 1000 ms). */
  pollMs?: number;
}

/**
 * The one event log. Every aggregate has its own stream; the store assigns the
 * global position and recorded_at. Adapters: SQLite (embedded) and KurrentDB.
 */
export interface EventStore {
  readonly kind: 'sqlite' | 'kurrentdb';
  /**
   * Most bytes one append may carry, counted as KurrentDB counts them: each
   * event's JSON data and metadata (UTF-8) plus twice its type's length. Over it:
   * EventTooLargeError and nothing appended.
   */
  readonly maxAppendSize: number;
  /** recordedAt is a whole number of microseconds that is a multiple of this (SQLite 1, KurrentDB 1000). */
  readonly recordedAtPrecisionMicros: number;
  /**
   * Appends atomically. The same event ids appended again are a no-op that answers
   * what the first append answered: always with the exact expected revision the
   * first append used (or `no_stream`); with `any` on SQLite always, on KurrentDB
   * only while the server still remembers those ids (best effort, see README).
   */
  append(
    stream: string,
    events: EventToAppend[],
    expected: ExpectedRevision,
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /** One stream in revision order; its cost depends on that stream only. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /**
   * Every stream whose name starts with `prefix` (an organization's
   * environments: `environment-acme/`), in position order, up to an instant:
   * what time travel folds. Read through the scope index (`index-scopes.ts`):
   * its cost is the scope's history, not the log's. SQLite reads the range of
   * its stream index under any prefix. KurrentDB reads a scope's index stream,
   * and also the log after the index's checkpoint (what `keepIndex` has not
   * reached yet) when the bound reaches past it; a prefix without a `/` is in
   * no scope there and reads the log.
   */
  readStreamsByPrefix(
    prefix: string,
    options?: Omit<ReadStreamOptions, 'fromRevision'>,
  ): Promise<StoredEvent[]>;
  /** What reads have cost so far (cumulative; see ReadStats). */
  readStats(): ReadStats;
  /**
   * Brings the scope index up to the log's head as of the call, and answers
   * the last position it covers. SQLite keeps its index in every commit (the
   * head). KurrentDB appends the links of the events after the checkpoint,
   * then moves the checkpoint.
   */
  catchUpIndex(): Promise<number>;
  /**
   * Keeps the scope index caught up until stopped: the process that holds
   * the projector lease runs it. SQLite: nothing to keep.
   */
  keepIndex(options?: KeepIndexOptions): Following;
  /**
   * The log after `afterPosition` (exclusive; 0 = from the beginning), in
   * position order: at most `limit` events, fewer where the store bounds a
   * batch's bytes (SQLite), and none only at the log's end.
   */
  readAll(afterPosition: number, limit: number): Promise<StoredEvent[]>;
  /**
   * readAll for a reader that integrates what was just appended (the
   * transparency log's sequencer): the same events, which SQLite answers,
   * for what this process appended last, from the rows it wrote rather than
   * from the file. Never for verification, which must read what storage holds.
   */
  readRecent?(afterPosition: number, limit: number): Promise<StoredEvent[]>;
  head(): Promise<LogHead>;
  /** The last event recorded at or before an instant (µs): where a read "as of then" is pinned; position 0 when none. */
  positionAt(recordedAt: number): Promise<LogHead>;
  /**
   * Catch up from `afterPosition` (exclusive), then follow live appends until
   * stopped. The handler gets batches of up to `batchSize` events, in position
   * order, each event once; a batch holds what arrived while the previous one ran.
   */
  follow(afterPosition: number, handler: BatchHandler, options?: FollowOptions): Following;
  /** How many events the log holds, where the store can count them cheaply; else undefined (KurrentDB). */
  eventCount(): Promise<number | undefined>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Wrong expected revision on '${stream}': expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/**
 * One append carries more than the store accepts (`EventStore.maxAppendSize`):
 * answered 413. Nothing was appended.
 */
export class EventTooLargeError extends Error {
  constructor(
    readonly stream: string,
    /** The append's size as counted by the adapter; undefined when only the server measured it. */
    readonly size: number | undefined,
    readonly limit: number,
  ) {
    super(
      `Append to '${stream}' is ${size === undefined ? 'over' : `${size} bytes, over`} the event store's limit of ${limit} bytes`,
    );
    this.name = 'EventTooLargeError';
  }
}

/** The engine behind a port cannot be reached: answered 503 with Retry-After. */
export class StoreUnavailableError extends Error {
  constructor(
    readonly engine: string,
    cause?: unknown,
  ) {
    super(`${engine} is unavailable${cause instanceof Error ? `: ${cause.message}` : ''}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}
