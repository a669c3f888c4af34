import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppendResult, ExpectedRevision, WrongExpectedRevisionError } from './event-store.port';

/** An event to append with its data and metadata already in the canonical JSON that is stored (and hashed by the transparency log). */
export interface SerializedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

/** One append of a group commit; `now` is the clock's reading for it (recorded_at is max(now, last)). */
export interface AppendRequest {
  stream: string;
  events: SerializedEvent[];
  expected: ExpectedRevision;
  now: number;
}

/** `replayed`: the same event ids were appended before, and this answers what that append answered. */
export type AppendOutcome = { ok: AppendResult; replayed?: true } | { error: unknown };

/** A connection to the log's file as every connection of the service opens it. */
export function openLog(path: string, busyTimeoutMs: number): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // FULL: a commit acknowledged to a client survives power loss (NORMAL may roll the last ones back,
  // and a read model already past them would then skip the positions that get reused).
  db.pragma('synchronous = FULL');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  return db;
}

/**
 * The log's writes: group commits, each append in a savepoint of its own so
 * one append's conflict fails that append alone. Runs on the store's writer
 * thread (a file) or on the caller's (`:memory:`).
 */
export class SqliteWriter {
  private readonly stmt: ReturnType<SqliteWriter['prepare']>;
  private readonly appendTx: Database.Transaction<(request: AppendRequest) => AppendOutcome>;
  private readonly groupTx: Database.Transaction<(batch: AppendRequest[], outcomes: AppendOutcome[]) => void>;

  constructor(private readonly db: Database.Database) {
    this.stmt = this.prepare();
    this.appendTx = db.transaction((request: AppendRequest) => this.appendInTransaction(request));
    // Called inside groupTx, appendTx is a savepoint: a failed append rolls back alone.
    this.groupTx = db.transaction((batch: AppendRequest[], outcomes: AppendOutcome[]) => {
      for (const request of batch) {
        try {
          outcomes.push(this.appendTx(request));
        } catch (error) {
          outcomes.push({ error });
        }
      }
    });
  }

  /** One transaction (one fsync) for the batch; throws when the transaction itself fails. */
  commit(batch: AppendRequest[]): AppendOutcome[] {
    const outcomes: AppendOutcome[] = [];
    this.groupTx.immediate(batch, outcomes);
    return outcomes;
  }

  /** Journal mode and synchronous level of the writing connection (2 = FULL). */
  durability(): { journalMode: string; synchronous: number } {
    return {
      journalMode: this.db.pragma('journal_mode', { simple: true }) as string,
      synchronous: this.db.pragma('synchronous', { simple: true }) as number,
    };
  }

  private prepare() {
    const db = this.db;
    return {
      streamRevision: db.prepare<[string], { revision: number | null }>(
        'SELECT MAX(revision) AS revision FROM events WHERE stream = ?',
      ),
      byEventId: db.prepare<
        [string],
        { stream: string; revision: number; position: number; recorded_at: number }
      >('SELECT stream, revision, position, recorded_at FROM events WHERE event_id = ?'),
      lastRecorded: db.prepare<[], { recorded_at: number }>(
        'SELECT recorded_at FROM events ORDER BY position DESC LIMIT 1',
      ),
      insert: db.prepare(
        `INSERT INTO events (event_id, stream, revision, type, data, metadata, recorded_at)
         VALUES (@id, @stream, @revision, @type, @data, @metadata, @recordedAt)`,
      ),
    };
  }

  private appendInTransaction({ stream, events, expected, now }: AppendRequest): AppendOutcome {
    const replay = this.previousAppend(stream, events);
    if (replay) return { ok: replay, replayed: true };
    const current = this.stmt.streamRevision.get(stream)?.revision ?? -1;
    assertExpected(stream, expected, current);
    const last = this.stmt.lastRecorded.get()?.recorded_at ?? 0;
    const recordedAt = Math.max(now, last);
    let position = 0;
    events.forEach((event, i) => {
      const info = this.stmt.insert.run({ ...event, stream, revision: current + 1 + i, recordedAt });
      position = Number(info.lastInsertRowid);
    });
    return { ok: { nextRevision: current + events.length, position, recordedAt } };
  }

  /** The same event ids appended before: answer what that append answered. */
  private previousAppend(stream: string, events: SerializedEvent[]): AppendResult | undefined {
    const first = this.stmt.byEventId.get(events[0].id);
    if (!first) return undefined;
    const rows = events.map((e) => this.stmt.byEventId.get(e.id));
    const consistent = rows.every(
      (row, i) => row && row.stream === stream && row.revision === first.revision + i,
    );
    if (!consistent) throw new WrongExpectedRevisionError(stream, 'any', first.revision);
    const last = rows[rows.length - 1]!;
    return { nextRevision: last.revision, position: last.position, recordedAt: last.recorded_at };
  }
}

export function assertExpected(stream: string, expected: ExpectedRevision, current: number): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === -1) ||
    (expected === 'stream_exists' && current >= 0) ||
    expected === current;
  if (!ok) throw new WrongExpectedRevisionError(stream, expected, current === -1 ? 'no_stream' : current);
}
