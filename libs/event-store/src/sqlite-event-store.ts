import type Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { DEFAULT_MAX_APPEND_SIZE, serializedAppendSize } from './append-size';
import { followByPolling } from './follow-loop';
import { searchesEventsByStream } from './query-plan';
import { TimeSlice } from './time-slice';
import { nowMicros } from './microseconds';
import { canonicalJson, rememberWrittenText } from './canonical-text';
import { InThreadWriter, type LogWriter, ThreadedWriter } from './sqlite-log-writer';
import { RecentAppends, type StoredRow, textBytes } from './recent-appends';
import { type AppendRequest, openLog } from './sqlite-writer';
import {
  AppendOptions,
  AppendResult,
  BatchHandler,
  EventStore,
  EventTooLargeError,
  EventToAppend,
  ExpectedRevision,
  FollowOptions,
  Following,
  LogHead,
  ReadStats,
  ReadStreamOptions,
  StoreUnavailableError,
  StoredEvent,
} from './event-store.port';

type Row = StoredRow;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position    INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id    TEXT    NOT NULL UNIQUE,
  stream      TEXT    NOT NULL,
  revision    INTEGER NOT NULL,
  type        TEXT    NOT NULL,
  data        TEXT    NOT NULL,
  metadata    TEXT    NOT NULL,
  recorded_at INTEGER NOT NULL,
  UNIQUE (stream, revision)
);
CREATE INDEX IF NOT EXISTS events_by_recorded_at ON events (recorded_at, position);
CREATE INDEX IF NOT EXISTS events_by_stream_time ON events (stream, revision, recorded_at);`;

interface PendingAppend extends Omit<AppendRequest, 'now'> {
  /** Each event's size as the append counted it (kept with the rows this process wrote). */
  sizes: number[];
  /** Each event's data and metadata parsed while its commit ran, for the live follower. */
  parsed?: StoredRow['parsed'][];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

const storeClosed = () => new StoreUnavailableError('SQLite', new Error('the event store is closed'));

export interface SqliteEventStoreOptions {
  /** File path, or ':memory:'. */
  path: string;
  /** Clock in microseconds; injectable for tests. */
  clock?: () => number;
  /** How often a follower polls for appends made by other processes. */
  pollMs?: number;
  /** Most bytes one append may carry (default KurrentDB's default, 1 MiB), so both adapters refuse alike. */
  maxAppendSize?: number;
  /** How long a write waits for another process's lock on the file before it fails as unavailable (default 5000). */
  busyTimeoutMs?: number;
  /** A long read gives the event loop a turn after this much of its work (default 10 ms). */
  readSliceMs?: number;
}

/**
 * The embedded event store: one SQLite file in WAL mode. recorded_at is
 * max(now, last recorded_at), so it never decreases along the position even
 * when the wall clock steps back.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  readonly maxAppendSize: number;
  readonly recordedAtPrecisionMicros = 1;
  private readonly db: Database.Database;
  private readonly clock: () => number;
  private readonly pollMs: number;
  private readonly appended = new EventEmitter();
  private readonly stmt: ReturnType<SqliteEventStore['prepare']>;
  /** Commits on a thread of their own for a file (ADR 0006), on this one for ':memory:'. */
  private readonly writer: LogWriter;
  private closed = false;
  private readonly readSliceMs: number;
  /** Rows and index entries read so far (ReadStats). */
  private recordsRead = 0;
  /**
   * Whether the planner answers the stream and prefix reads from a range of
   * the stream index (EXPLAIN QUERY PLAN, when prepared). When it would not,
   * each such read is counted as visiting every row of the table.
   */
  private readonly rangePlans: boolean;

  constructor(options: SqliteEventStoreOptions) {
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    this.db = openLog(options.path, busyTimeoutMs);
    this.db.exec(SCHEMA);
    this.clock = options.clock ?? nowMicros;
    this.pollMs = options.pollMs ?? 100;
    this.maxAppendSize = options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE;
    this.readSliceMs = options.readSliceMs ?? 10;
    this.appended.setMaxListeners(0);
    this.stmt = this.prepare();
    this.rangePlans = this.plannedAsRanges();
    this.writer =
      options.path === ':memory:'
        ? new InThreadWriter(this.db)
        : new ThreadedWriter(options.path, busyTimeoutMs);
  }

  private prepare() {
    const db = this.db;
    return {
      // Positions first, from the covering (stream, revision, recorded_at) index: no event's text is
      // read (recorded_at is stored after it) or sorted; the events are then read by position. The
      // bounds are applied here, row by row, so every index entry the query visits is counted.
      streamPositions: db.prepare<[string, number], [number, number]>(STREAM_RANGE).raw(),
      // The scope index: the range of stream names under the prefix, and nothing outside it.
      prefixPositions: db.prepare<[string, string], [number, number]>(PREFIX_RANGE).raw(),
      atPositions: db.prepare<[string], Row>(
        'SELECT * FROM events WHERE position IN (SELECT value FROM json_each(?)) ORDER BY position',
      ),
      readAll: db.prepare<[number, number], Row>(
        'SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?',
      ),
      head: db.prepare<[], { position: number; recorded_at: number }>(
        'SELECT position, recorded_at FROM events ORDER BY position DESC LIMIT 1',
      ),
      count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM events'),
      explain: (sql: string, ...args: unknown[]) =>
        db
          .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...args)
          .map((row) => row.detail),
      positionAt: db.prepare<[number], { position: number; recorded_at: number }>(
        'SELECT position, recorded_at FROM events WHERE recorded_at <= ? ORDER BY recorded_at DESC, position DESC LIMIT 1',
      ),
    };
  }

  /** The plans SQLite makes for the stream and prefix reads (EXPLAIN QUERY PLAN). */
  queryPlans(): { stream: string[]; prefix: string[] } {
    return {
      stream: this.stmt.explain(STREAM_RANGE, 's-acme/x', 0),
      prefix: this.stmt.explain(PREFIX_RANGE, 's-acme/', 's-acme/\u{10ffff}'),
    };
  }

  private plannedAsRanges(): boolean {
    const plans = this.queryPlans();
    return searchesEventsByStream(plans.stream) && searchesEventsByStream(plans.prefix);
  }

  /** What a stream or prefix read visited: the range's entries, or the whole table when the plan scans it. */
  private countVisited(entries: number): void {
    this.recordsRead += this.rangePlans ? entries : (this.stmt.count.get()?.n ?? 0);
  }

  readStats(): ReadStats {
    return { recordsRead: this.recordsRead };
  }

  /** The index is the stream-name B-tree, written by each commit: it covers the whole log. */
  async catchUpIndex(): Promise<number> {
    return (await this.head()).position;
  }

  keepIndex(): Following {
    return { stop: async () => undefined };
  }

  /** Journal mode and synchronous level of the connection that writes (2 = FULL). */
  durability(): Promise<{ journalMode: string; synchronous: number }> {
    return this.writer.durability();
  }

  private queued: PendingAppend[] = [];
  /** What this process committed last, handed to its live follower as written. */
  private readonly recent = new RecentAppends();

  /**
   * Group commit: appends that arrive in the same turn of the event loop are
   * written in one transaction (one fsync), each in a savepoint of its own, so
   * one append's conflict fails that append alone.
   */
  append(
    stream: string,
    events: EventToAppend[],
    expected: ExpectedRevision,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    // Serialized once, here: the size check, the stored text and the chain's link all use this text.
    const serialized = events.map((e) => ({
      id: e.id,
      type: e.type,
      data: canonicalJson(e.data),
      metadata: canonicalJson(e.metadata),
    }));
    const sizes = serialized.map((e) => serializedAppendSize([e]));
    const size = sizes.reduce((a, b) => a + b, 0);
    if (size > this.maxAppendSize)
      return Promise.reject(new EventTooLargeError(stream, size, this.maxAppendSize));
    if (this.closed) return Promise.reject(storeClosed());
    try {
      options.admit?.(size);
    } catch (refused) {
      return Promise.reject(refused as Error);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      if (this.queued.length === 0 && !this.committing) setImmediate(() => this.commitQueued());
      this.queued.push({ stream, events: serialized, sizes, expected, resolve, reject });
    });
  }

  /** The batch being committed; appends arriving meanwhile wait for it and go in the next one. */
  private committing?: Promise<void>;

  private commitQueued(): void {
    if (this.committing || this.queued.length === 0) return;
    const batch = this.queued;
    this.queued = [];
    if (this.closed) {
      for (const p of batch) p.reject(storeClosed());
      return;
    }
    const requests = batch.map((p) => ({
      stream: p.stream,
      events: p.events,
      expected: p.expected,
      now: this.clock(),
    }));
    const committed = this.writer.commit(requests);
    this.parseForFollower(batch);
    this.committing = committed.then(
      (outcomes) => {
        let last = 0;
        batch.forEach((p, i) => {
          const outcome = outcomes[i];
          if ('ok' in outcome) {
            last = Math.max(last, outcome.ok.position);
            if (!outcome.replayed) this.recent.keep(rowsOf(p, outcome.ok));
            p.resolve(outcome.ok);
          } else p.reject(unavailableWhenLocked(outcome.error));
        });
        if (last > 0) this.appended.emit('appended', last);
      },
      (error: unknown) => {
        for (const p of batch) p.reject(unavailableWhenLocked(error));
      },
    );
    void this.committing.finally(() => {
      this.committing = undefined;
      // On the next turn, once the answered appenders have appended again: they go in one batch.
      if (this.queued.length > 0) setImmediate(() => this.commitQueued());
    });
  }

  /** Live followers in this process, and the position the furthest read to. */
  private followers = 0;
  private followedTo = 0;

  /**
   * What a live follower that is caught up reads next, parsed while the
   * writer thread commits (the fsync): the follower then projects it as soon
   * as it is durable instead of parsing it first. Only then, so the parsed
   * values wait for one read at most.
   */
  private parseForFollower(batch: PendingAppend[]): void {
    if (this.followers === 0 || this.followedTo !== this.recent.last) return;
    for (const p of batch)
      p.parsed = p.events.map((e) => ({
        data: JSON.parse(e.data) as Record<string, unknown>,
        metadata: JSON.parse(e.metadata) as Record<string, unknown>,
      }));
  }

  /**
   * Along the stream's revisions, recorded_at and the position never
   * decrease: the read stops at the first entry past the bound, or at
   * maxCount, and visits no entry after it.
   */
  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const until = options.untilRecordedAt ?? Number.MAX_SAFE_INTEGER;
    const untilPosition = options.untilPosition ?? Number.MAX_SAFE_INTEGER;
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const positions = this.guard(() => {
      const found: number[] = [];
      if (maxCount <= 0) return found;
      let visited = 0;
      for (const [position, recordedAt] of this.stmt.streamPositions.iterate(
        stream,
        options.fromRevision ?? 0,
      )) {
        visited++;
        if (recordedAt > until || position > untilPosition) break;
        found.push(position);
        if (found.length === maxCount) break;
      }
      this.countVisited(visited);
      return found;
    });
    return this.readInSlices(positions);
  }

  /**
   * The scope index: the stream-name range [prefix, prefix + U+10FFFF) of the
   * covering stream index, every entry of it visited (ordered by name, not
   * by position, so a bound cannot end it early), none outside it.
   */
  async readStreamsByPrefix(
    prefix: string,
    options: Omit<ReadStreamOptions, 'fromRevision'> = {},
  ): Promise<StoredEvent[]> {
    const until = options.untilRecordedAt ?? Number.MAX_SAFE_INTEGER;
    const untilPosition = options.untilPosition ?? Number.MAX_SAFE_INTEGER;
    const positions = this.guard(() => {
      const found: number[] = [];
      let visited = 0;
      for (const [position, recordedAt] of this.stmt.prefixPositions.iterate(prefix, `${prefix}\u{10ffff}`)) {
        visited++;
        if (recordedAt <= until && position <= untilPosition) found.push(position);
      }
      this.countVisited(visited);
      return found.sort((a, b) => a - b);
    });
    return this.readInSlices(positions);
  }

  /**
   * The events at `positions` (ascending), read and parsed a slice of the
   * event loop's time at a time, in chunks of about READ_CHUNK_BYTES: a long
   * stream of large events (a trail of 1 MB attestations read for time
   * travel) is not read in one turn. The log is append-only, so the events
   * found first are read as they were.
   */
  private async readInSlices(positions: number[]): Promise<StoredEvent[]> {
    const slice = new TimeSlice(this.readSliceMs);
    const events: StoredEvent[] = [];
    let take = 1;
    for (let i = 0; i < positions.length;) {
      if (slice.due) await slice.turn();
      const chunk = positions.slice(i, i + take);
      const rows = this.guard(() => this.stmt.atPositions.all(JSON.stringify(chunk)));
      this.recordsRead += rows.length;
      let bytes = 0;
      for (const row of rows) {
        const event = toStored(row);
        bytes += event.size!;
        events.push(event);
      }
      i += chunk.length;
      // At most twice the last chunk: a small event (a trail's start) says nothing of the next ones,
      // and one read of every large event after it would hold the loop for all of them.
      take = Math.min(
        MAX_READ_CHUNK,
        2 * chunk.length,
        Math.max(1, Math.floor((READ_CHUNK_BYTES * chunk.length) / (bytes || 1))),
      );
    }
    return events;
  }

  /** Read from the file, always: verification reads what storage holds, not what this process wrote. */
  async readAll(afterPosition: number, limit: number): Promise<StoredEvent[]> {
    return this.readLog(afterPosition, limit);
  }

  async readRecent(afterPosition: number, limit: number): Promise<StoredEvent[]> {
    // What this process just appended, as written; the log is read only past it.
    const rows = this.recent.from(afterPosition, limit, READ_BATCH_BYTES) ?? [];
    const recent = rows.map(readLazily);
    if (recent.length === limit || textBytes(rows) >= READ_BATCH_BYTES) return recent;
    const after = recent.length ? recent[recent.length - 1].position : afterPosition;
    return recent.concat(this.readLog(after, limit - recent.length));
  }

  private readLog(afterPosition: number, limit: number): StoredEvent[] {
    return this.guard(() => {
      // Bounded by bytes too: a batch of large events is parsed (and then projected) in one turn of the loop.
      const batch: StoredEvent[] = [];
      let bytes = 0;
      for (const row of this.stmt.readAll.iterate(afterPosition, limit)) {
        this.recordsRead++;
        const event = toStored(row);
        batch.push(event);
        bytes += event.size!;
        if (bytes >= READ_BATCH_BYTES) break;
      }
      return batch;
    });
  }

  async head(): Promise<LogHead> {
    const row = this.guard(() => this.stmt.head.get());
    return row ? { position: row.position, recordedAt: row.recorded_at } : { position: 0, recordedAt: 0 };
  }

  async positionAt(recordedAt: number): Promise<LogHead> {
    const row = this.guard(() => this.stmt.positionAt.get(recordedAt));
    return row ? { position: row.position, recordedAt: row.recorded_at } : { position: 0, recordedAt: 0 };
  }

  async eventCount(): Promise<number | undefined> {
    return this.guard(() => this.stmt.count.get()?.n ?? 0);
  }

  /**
   * The embedded store's "unreachable": closed, or locked by another process past
   * busy_timeout. Both are answered 503 like a server outage; anything else is a bug.
   */
  private guard<T>(operation: () => T): T {
    if (this.closed) throw storeClosed();
    try {
      return operation();
    } catch (error) {
      throw unavailableWhenLocked(error);
    }
  }

  follow(afterPosition: number, handler: BatchHandler, options: FollowOptions = {}): Following {
    this.followers++;
    const following = followByPolling(afterPosition, handler, options, {
      // What this process just appended is handed over as written; anything else is read from the log.
      readAll: async (after, limit) => {
        if (this.closed) throw storeClosed();
        const recent = this.recent.from(after, limit, READ_BATCH_BYTES);
        const events = recent ? recent.map(takeParsed) : this.readAll(after, limit);
        const read = await events;
        if (read.length) this.followedTo = Math.max(this.followedTo, read[read.length - 1].position);
        return read;
      },
      caughtUp: (position) => position === this.recent.last,
      pollMs: this.pollMs,
      waitForAppend: (timeoutMs) =>
        new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            this.appended.off('appended', wake);
            resolve();
          };
          const timer = setTimeout(wake, timeoutMs);
          this.appended.on('appended', wake);
        }),
    });
    let stopped = false;
    return {
      stop: () => {
        if (!stopped) this.followers--;
        stopped = true;
        return following.stop();
      },
    };
  }

  async ping(): Promise<void> {
    this.guard(() => this.db.prepare('SELECT 1').get());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.committing) await this.committing;
    this.commitQueued(); // refuses what is queued
    this.recent.clear();
    await this.writer.close();
    this.db.close();
  }
}

/** A stream's index entries from a revision on, in revision order (the bounds are applied as they are read). */
const STREAM_RANGE =
  'SELECT position, recorded_at FROM events WHERE stream = ? AND revision >= ? ORDER BY revision';
/** Every index entry whose stream name is in [?, ?): a range of the stream index. */
const PREFIX_RANGE = 'SELECT position, recorded_at FROM events WHERE stream >= ? AND stream < ?';

/** Another process's lock past busy_timeout is answered 503 like a server outage; anything else is a bug. */
function unavailableWhenLocked(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED'
    ? new StoreUnavailableError('SQLite', error)
    : error;
}

/** Roughly the most event text one `readAll` parses: past it the batch ends (it always holds one event). */
const READ_BATCH_BYTES = 1024 * 1024;
/** About how much event text a stream read takes from the file at once, and its most events at once. */
const READ_CHUNK_BYTES = 256 * 1024;
const MAX_READ_CHUNK = 512;

/** The rows an append wrote: its events at consecutive positions and revisions ending at the result's. */
function rowsOf(append: PendingAppend, result: AppendResult): Row[] {
  const first = result.position - append.events.length + 1;
  const firstRevision = result.nextRevision - append.events.length + 1;
  return append.events.map((event, i) => ({
    position: first + i,
    event_id: event.id,
    stream: append.stream,
    revision: firstRevision + i,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    recorded_at: result.recordedAt,
    size: append.sizes[i],
    parsed: append.parsed?.[i],
  }));
}

/**
 * An event this process appended, from the row it wrote, carrying the
 * canonical text it was written as, its data parsed only when first read:
 * the transparency log reads what was just appended for its text and
 * organization alone, and a 500-pod snapshot is not parsed for it.
 */
function readLazily(row: Row): StoredEvent {
  let data: Record<string, unknown> | undefined;
  const event: StoredEvent = {
    id: row.event_id,
    stream: row.stream,
    revision: row.revision,
    position: row.position,
    type: row.type,
    get data() {
      return (data ??= JSON.parse(row.data) as Record<string, unknown>);
    },
    set data(value) {
      data = value;
    },
    metadata: JSON.parse(row.metadata) as StoredEvent['metadata'],
    recordedAt: row.recorded_at,
    size: row.size ?? serializedAppendSize([row]),
  };
  rememberWrittenText(event, row.data, row.metadata);
  return event;
}

/** A row this process appended, for a live follower: its data and metadata as parsed during the commit, once. */
function takeParsed(row: Row): StoredEvent {
  const parsed = row.parsed;
  if (!parsed) return toStored(row);
  row.parsed = undefined;
  return storedFrom(row, parsed.data, parsed.metadata);
}

const toStored = (row: Row): StoredEvent =>
  storedFrom(
    row,
    JSON.parse(row.data) as Record<string, unknown>,
    JSON.parse(row.metadata) as Record<string, unknown>,
  );

function storedFrom(row: Row, data: Record<string, unknown>, metadata: Record<string, unknown>): StoredEvent {
  return {
    id: row.event_id,
    stream: row.stream,
    revision: row.revision,
    position: row.position,
    type: row.type,
    data,
    metadata: metadata as StoredEvent['metadata'],
    recordedAt: row.recorded_at,
    size: row.size ?? serializedAppendSize([row]),
  };
}
