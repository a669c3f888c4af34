import {
  ANY,
  AppendRecordSizeExceededError,
  BACKWARDS,
  CancelledError,
  DeadlineExceededError,
  END,
  FORWARDS,
  KurrentDBClient,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  TimeoutError,
  TransactionMaxSizeExceededError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
  binaryEvent,
  convertToCommandError,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
} from '@kurrent/kurrentdb-client';
import type {
  AllStreamResolvedEvent,
  AppendStreamState,
  EventData,
  ReadPosition,
  ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { LRUCache } from 'lru-cache';
import { DEFAULT_MAX_APPEND_SIZE, appendSize } from './append-size';
import {
  INDEX_CHECKPOINT_STREAM,
  indexStreamOf,
  linkData,
  linksOf,
  linkTarget,
  scopeFor,
  tailNeeded,
} from './index-scopes';
import { LiveBatches } from './live-batches';
import {
  AppendOptions,
  AppendResult,
  BatchHandler,
  EventMetadata,
  EventStore,
  EventToAppend,
  EventTooLargeError,
  ExpectedRevision,
  FollowOptions,
  Following,
  KeepIndexOptions,
  LogHead,
  ReadStats,
  ReadStreamOptions,
  StoreUnavailableError,
  StoredEvent,
  WrongExpectedRevisionError,
} from './event-store.port';

const ENGINE = 'KurrentDB';

/** Events one indexing pass reads from the log at a time; the tail of a prefix read is read in pages of this many too. */
const INDEX_BATCH = 500;
/** Index streams one indexing batch appends to at once. */
const INDEX_APPENDS_IN_FLIGHT = 8;
/** Tries of one index append that finds another indexer moved the stream on (it re-reads the stream's last link each time). */
const INDEX_APPEND_TRIES = 5;
/** Links the checkpoint stream keeps ($maxCount; the server scavenges older ones): only the latest is read. */
const CHECKPOINTS_KEPT = 64;
/** Index streams whose last link this process remembers between batches (else it reads it again). */
const INDEX_TIPS_KEPT = 10_000;

/** The last link of an index stream: its revision (-1: no stream yet) and the position and instant of its event. */
interface IndexTip {
  revision: number;
  position: number;
  recordedAt: number;
}

const NO_TIP: IndexTip = { revision: -1, position: 0, recordedAt: 0 };

/** The part of the client the adapter uses (tests hand in a fake). */
export type KurrentClient = Pick<
  KurrentDBClient,
  'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'setStreamMetadata' | 'dispose'
>;

export interface KurrentDbEventStoreOptions {
  /**
   * DES_CONNECT_TIMEOUT_MS: how long any one operation may wait for the server
   * (for a stream of events: between two of them) before it fails with
   * StoreUnavailableError. Also the client's `defaultDeadline`.
   */
  connectTimeoutMs?: number;
  /** Refused before sending when over it; keep it equal to the server's MaxAppendSize (default 1 MiB). */
  maxAppendSize?: number;
  /** Wall clock in ms, for the recorded_at fallback (tests). */
  now?: () => number;
  /** The client; default one built from the connection string. */
  client?: KurrentClient;
}

/**
 * KurrentDB adapter (production).
 *
 * Global position: the event's prepare position in the transaction log. For
 * every event written by a gRPC append the server reports commit == prepare ==
 * the event's own log position (AllReader returns `new CommitEventRecord(event,
 * prepare.LogPosition)` for self-committed prepares), so `{commit: p, prepare: p}`
 * is an exact resume point; reads from it are inclusive, hence the `> p` filters.
 * Logs holding legacy explicit transactions (TCP API) are not supported.
 *
 * recorded_at: the server's `created`, which both read paths of the client give
 * as a JS Date, so milliseconds (× 1000 here).
 *
 * The scope index (ADR 0032): for every scope of an event's stream
 * (`index-scopes.ts`: `trail-acme/`, `trail-acme/web/`), a link event (`$>`,
 * `<revision>@<stream>`, its event's position and recorded_at in the
 * metadata) in that scope's index stream, appended in position order by an
 * indexing pass that reads the log after the checkpoint; then a link to the
 * last event indexed in the checkpoint stream. Without multi-stream
 * transactions, what holds is the order: every link of an event at or before
 * the checkpoint was acknowledged before the checkpoint was written. A prefix
 * read reads the checkpoint, then the scope's index stream (links resolved) up
 * to it, then, only when the bound reaches past it, the log after it. Index
 * appends carry the expected revision of the index stream, so two passes
 * (two processes, or a pass retried after a crash) never link an event twice.
 * Links and checkpoints are `$>` records: every read of `$all` here filters
 * system records out on the server, so no projection, follower or head sees them.
 */
export class KurrentDbEventStore implements EventStore {
  readonly kind = 'kurrentdb' as const;
  readonly maxAppendSize: number;
  readonly recordedAtPrecisionMicros = 1000;
  private readonly client: KurrentClient;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  /** Records the server sent to the reads (ReadStats). */
  private recordsRead = 0;
  /** Index streams' last links as this process last wrote or read them (dropped on any failed append). */
  private readonly indexTips = new LRUCache<string, IndexTip>({ max: INDEX_TIPS_KEPT });

  constructor(connectionString: string, options: KurrentDbEventStoreOptions = {}) {
    this.timeoutMs = options.connectTimeoutMs ?? 3000;
    this.maxAppendSize = options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE;
    this.now = options.now ?? Date.now;
    this.client =
      options.client ??
      KurrentDBClient.connectionString(withClientSettings(connectionString, this.timeoutMs));
  }

  async append(
    stream: string,
    events: EventToAppend[],
    expected: ExpectedRevision,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const size = appendSize(events);
    if (size > this.maxAppendSize) throw new EventTooLargeError(stream, size, this.maxAppendSize);
    options.admit?.(size);
    let appended: Awaited<ReturnType<KurrentClient['appendToStream']>>;
    try {
      appended = await this.bounded(`append to ${stream}`, () =>
        this.client.appendToStream(
          stream,
          events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data, metadata: e.metadata })),
          { streamState: toStreamState(expected) },
        ),
      );
    } catch (error) {
      throw translateAppend(error, stream, expected);
    }
    // Committed. From here on nothing may turn the write into an error.
    const nextRevision = Number(appended.nextExpectedRevision);
    const position = globalPosition(appended.position?.prepare);
    // The append's answer has no timestamp: `created` needs one read of the last
    // event. If that read fails, the client's clock (ms, like the store) stands in.
    const last = await this.readBack(stream, nextRevision);
    return {
      nextRevision,
      // The server answers no position only for an idempotent replay it cannot
      // place; then the read-back gives it, else 0 (read-your-writes skips waiting).
      position: position ?? last?.position ?? 0,
      recordedAt: last?.recordedAt ?? Math.floor(this.now()) * 1000,
    };
  }

  /** The event at `revision`, from the leader (which has just committed it), or undefined. */
  private async readBack(stream: string, revision: number): Promise<StoredEvent | undefined> {
    try {
      for await (const resolved of this.boundedStream(
        `read back ${stream}@${revision}`,
        this.client.readStream(stream, {
          direction: FORWARDS,
          fromRevision: BigInt(revision),
          maxCount: 1,
          requiresLeader: true,
        }),
      )) {
        const event = toStored(resolved);
        if (event?.revision === revision) return event;
      }
    } catch {
      // Documented fallback: the write stands.
    }
    return undefined;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const until = options.untilRecordedAt ?? Number.MAX_SAFE_INTEGER;
    const untilPosition = options.untilPosition ?? Number.MAX_SAFE_INTEGER;
    const out: StoredEvent[] = [];
    try {
      for await (const resolved of this.boundedStream(
        `read ${stream}`,
        this.client.readStream(stream, {
          direction: FORWARDS,
          fromRevision: options.fromRevision ? BigInt(options.fromRevision) : START,
          ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
        }),
      )) {
        this.recordsRead++;
        const event = toStored(resolved);
        if (!event) continue;
        if (event.recordedAt > until || event.position > untilPosition) break;
        out.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw translate(error);
    }
    return out;
  }

  /**
   * Through the scope index: the checkpoint, the scope's index stream up to
   * it (or to the bound), then the log after it when the bound reaches past
   * it. A prefix in no scope (no `/`) reads the log from the start.
   */
  async readStreamsByPrefix(
    prefix: string,
    options: Omit<ReadStreamOptions, 'fromRevision'> = {},
  ): Promise<StoredEvent[]> {
    const bound = {
      untilRecordedAt: options.untilRecordedAt ?? Number.MAX_SAFE_INTEGER,
      untilPosition: options.untilPosition ?? Number.MAX_SAFE_INTEGER,
    };
    const out: StoredEvent[] = [];
    let tailAfter = 0;
    const scope = scopeFor(prefix);
    try {
      if (scope !== undefined) {
        const covered = await this.indexTip(INDEX_CHECKPOINT_STREAM, { cached: false, counted: true });
        if (covered.revision >= 0) {
          const ended = await this.readIndex(scope, prefix, covered.position, bound, out);
          if (ended || !tailNeeded(covered, bound)) return out;
          tailAfter = covered.position;
        }
      }
      await this.readTail(prefix, tailAfter, bound, out);
    } catch (error) {
      throw translate(error);
    }
    return out;
  }

  /**
   * The scope's events under `prefix`, in position order, from its index
   * stream with links resolved, up to the checkpoint `covered`: true when an
   * event past the bound ended the read (the log after the checkpoint is then
   * not needed either).
   */
  private async readIndex(
    scope: string,
    prefix: string,
    covered: number,
    bound: { untilRecordedAt: number; untilPosition: number },
    out: StoredEvent[],
  ): Promise<boolean> {
    let last = 0;
    try {
      for await (const resolved of this.boundedStream(
        `read the index of ${scope}`,
        this.client.readStream(indexStreamOf(scope), {
          direction: FORWARDS,
          fromRevision: START,
          resolveLinkTos: true,
          // Like the checkpoint, from the leader: a follower behind it could lack links the checkpoint covers.
          requiresLeader: true,
        }),
      )) {
        this.recordsRead += resolved.link && resolved.event ? 2 : 1;
        // Unresolved (its event gone), the link itself comes as the event: skipped below.
        const target = linkTarget((resolved.link ?? resolved.event)?.metadata);
        if (!target) continue;
        // Links past the checkpoint may be there, but not all of them yet: the log after it is read instead.
        if (target.position > covered) return false;
        if (target.position <= last) continue;
        last = target.position;
        if (target.recorded_at > bound.untilRecordedAt || target.position > bound.untilPosition) return true;
        const event = toStored(resolved, target.position);
        if (event?.stream.startsWith(prefix)) out.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return false;
      throw error;
    }
    return false;
  }

  /** The log after `after` up to the bound, every record read (and counted), the prefix's events kept. */
  private async readTail(
    prefix: string,
    after: number,
    bound: { untilRecordedAt: number; untilPosition: number },
    out: StoredEvent[],
  ): Promise<void> {
    for (let from = after; ;) {
      const page = await this.readLog(from, INDEX_BATCH, true);
      if (page.length === 0) return;
      for (const event of page) {
        if (event.recordedAt > bound.untilRecordedAt || event.position > bound.untilPosition) return;
        if (event.stream.startsWith(prefix)) out.push(event);
      }
      if (page.length < INDEX_BATCH) return; // a short page is the log's end
      from = page[page.length - 1].position;
    }
  }

  readStats(): ReadStats {
    return { recordsRead: this.recordsRead };
  }

  /** One indexing pass, up to the head as of the call. */
  async catchUpIndex(): Promise<number> {
    try {
      return await this.indexPass(() => false);
    } catch (error) {
      throw translate(error);
    }
  }

  /** A pass (to the head as of its start), then `pollMs`, again; a failed pass is reported, and the next one retries. */
  keepIndex(options: KeepIndexOptions = {}): Following {
    const pollMs = options.pollMs ?? 1000;
    let stopped = false;
    let wake: (() => void) | undefined;
    const done = (async () => {
      await this.limitCheckpoints();
      while (!stopped) {
        try {
          await this.indexPass(() => stopped);
        } catch (error) {
          if (!stopped) options.onError?.(translate(error));
        }
        if (stopped) break;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    })();
    return {
      async stop() {
        stopped = true;
        wake?.();
        await done;
      },
    };
  }

  /**
   * Links every event after the checkpoint, up to the head as of the start,
   * a batch at a time: each batch's links, then the checkpoint moved to its
   * last event. Answers the position the index covers.
   */
  private async indexPass(stopped: () => boolean): Promise<number> {
    const head = await this.head();
    let covered = (await this.indexTip(INDEX_CHECKPOINT_STREAM, { cached: true, counted: false })).position;
    while (covered < head.position && !stopped()) {
      const batch = await this.readLog(covered, INDEX_BATCH, false);
      if (batch.length === 0) break;
      const links = [...linksOf(batch)];
      let next = 0;
      const appender = async () => {
        while (next < links.length) {
          const [stream, events] = links[next++];
          await this.appendLinks(stream, events);
        }
      };
      await Promise.all(Array.from({ length: Math.min(INDEX_APPENDS_IN_FLIGHT, links.length) }, appender));
      // Every link of the batch is acknowledged: the checkpoint may name its last event.
      const last = batch[batch.length - 1];
      await this.appendLinks(INDEX_CHECKPOINT_STREAM, [last], true);
      covered = last.position;
      if (batch.length < INDEX_BATCH) break; // a short page is the log's end
    }
    return covered;
  }

  /**
   * Links to `events` (in position order) appended to an index stream after
   * its last link, with that link's revision expected: events it already
   * links to are skipped, so a pass run twice, or beside another, links each
   * event once. `latestOnly`: only the last event is linked (the checkpoint).
   */
  private async appendLinks(stream: string, events: StoredEvent[], latestOnly = false): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const tip = await this.indexTip(stream, { cached: true, counted: false });
      const fresh = events.filter((e) => e.position > tip.position);
      if (fresh.length === 0) return;
      const linked = latestOnly ? fresh.slice(-1) : fresh;
      try {
        const appended = await this.bounded(`append to ${stream}`, () =>
          this.client.appendToStream(stream, linked.map(linkTo), {
            streamState: tip.revision < 0 ? NO_STREAM : BigInt(tip.revision),
          }),
        );
        const last = linked[linked.length - 1];
        this.indexTips.set(stream, {
          revision: Number(appended.nextExpectedRevision),
          position: last.position,
          recordedAt: last.recordedAt,
        });
        if (stream === INDEX_CHECKPOINT_STREAM && tip.revision < 0) await this.limitCheckpoints();
        return;
      } catch (error) {
        // Whatever the outcome (a timeout may hide a success), the stream's last link is read again.
        this.indexTips.delete(stream);
        if (asCommandError(error) instanceof WrongExpectedVersionError && attempt < INDEX_APPEND_TRIES)
          continue;
        throw error;
      }
    }
  }

  /** The last link of an index stream (NO_TIP when it has none), from this process's memory when `cached`. */
  private async indexTip(stream: string, how: { cached: boolean; counted: boolean }): Promise<IndexTip> {
    if (how.cached) {
      const known = this.indexTips.get(stream);
      if (known) return known;
    }
    let tip = NO_TIP;
    try {
      for await (const resolved of this.boundedStream(
        `read the last link of ${stream}`,
        this.client.readStream(stream, {
          direction: BACKWARDS,
          fromRevision: END,
          maxCount: 1,
          requiresLeader: true,
        }),
      )) {
        if (how.counted) this.recordsRead++;
        const link = resolved.event;
        if (!link) continue;
        const target = linkTarget(link.metadata);
        if (!target) throw new Error(`the index link ${stream}@${link.revision} names no event position`);
        tip = { revision: Number(link.revision), position: target.position, recordedAt: target.recorded_at };
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    if (how.cached) this.indexTips.set(stream, tip);
    return tip;
  }

  /** The checkpoint stream keeps its latest links only (best effort: without the right to set it, it grows). */
  private async limitCheckpoints(): Promise<void> {
    await this.bounded('limit the index checkpoints', () =>
      this.client.setStreamMetadata(INDEX_CHECKPOINT_STREAM, { maxCount: CHECKPOINTS_KEPT }),
    ).catch(() => undefined);
  }

  /**
   * Up to `limit` events after `afterPosition`. Reads with `maxCount`; events the
   * adapter does not deliver (non-JSON, `$` streams) are skipped without ending
   * the read early: only a short page means the end of the log.
   */
  async readAll(afterPosition: number, limit: number): Promise<StoredEvent[]> {
    return this.readLog(afterPosition, limit, true);
  }

  /** readAll; `counted`: what it reads goes into ReadStats (the indexing passes' reads do not). */
  private async readLog(afterPosition: number, limit: number, counted: boolean): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    let from = afterPosition;
    try {
      for (;;) {
        // +1: a read from a position includes the event at it.
        const maxCount = limit - out.length + (from > 0 ? 1 : 0);
        let returned = 0;
        let furthest = from;
        for await (const resolved of this.boundedStream(
          'read $all',
          this.client.readAll({
            direction: FORWARDS,
            fromPosition: readPosition(from),
            maxCount,
            filter: excludeSystemEvents(),
          }),
        )) {
          returned++;
          if (counted) this.recordsRead++;
          const position = eventPosition(resolved);
          if (position !== undefined && position > furthest) furthest = position;
          const event = toStored(resolved);
          if (!event || event.position <= from) continue;
          out.push(event);
          if (out.length === limit) return out;
        }
        if (returned < maxCount || furthest <= from) return out;
        from = furthest;
      }
    } catch (error) {
      throw translate(error);
    }
  }

  async head(): Promise<LogHead> {
    try {
      for await (const resolved of this.boundedStream(
        'read the head of $all',
        this.client.readAll({
          direction: BACKWARDS,
          fromPosition: END,
          maxCount: 100,
          filter: excludeSystemEvents(),
        }),
      )) {
        const event = toStored(resolved);
        if (event) return { position: event.position, recordedAt: event.recordedAt };
      }
    } catch (error) {
      throw translate(error);
    }
    return { position: 0, recordedAt: 0 };
  }

  /** Read backwards from the end: its cost is the events recorded since the instant. */
  async positionAt(recordedAt: number): Promise<LogHead> {
    try {
      for await (const resolved of this.boundedStream(
        'read $all backwards to an instant',
        this.client.readAll({ direction: BACKWARDS, fromPosition: END, filter: excludeSystemEvents() }),
      )) {
        const event = toStored(resolved);
        if (event && event.recordedAt <= recordedAt)
          return { position: event.position, recordedAt: event.recordedAt };
      }
    } catch (error) {
      throw translate(error);
    }
    return { position: 0, recordedAt: 0 };
  }

  /** $all has no count the server can give cheaply. */
  async eventCount(): Promise<number | undefined> {
    return undefined;
  }

  /**
   * Catch-up reads $all in batches (`maxCount` = batchSize) up to the head, then
   * subscribes from the last position delivered. Live events are batched: the
   * handler gets what arrived while it was busy (at most batchSize). On any
   * failure: onError, a pause, and catch-up again from the last delivered position.
   */
  follow(afterPosition: number, handler: BatchHandler, options: FollowOptions = {}): Following {
    const batchSize = Math.max(1, options.batchSize ?? 500);
    const retryDelayMs = options.retryDelayMs ?? 500;
    let stopped = false;
    let position = afterPosition;
    let live: { batches: LiveBatches<StoredEvent>; unsubscribe(): Promise<void> } | undefined;
    let wakeFromPause: (() => void) | undefined;
    const deliver = async (batch: StoredEvent[]) => {
      const fresh = batch.filter((e) => e.position > position);
      if (fresh.length === 0 || stopped) return;
      await handler(fresh);
      position = fresh[fresh.length - 1].position;
    };
    const done = (async () => {
      while (!stopped) {
        try {
          for (;;) {
            const batch = await this.readAll(position, batchSize);
            if (stopped || batch.length === 0) break;
            await deliver(batch);
          }
          if (stopped) break;
          const subscription = this.client.subscribeToAll({
            fromPosition: readPosition(position),
            filter: excludeSystemEvents(),
          });
          const batches = new LiveBatches<StoredEvent>(
            subscription,
            (item) => toStored(item as AllStreamResolvedEvent),
            batchSize,
          );
          live = { batches, unsubscribe: () => subscription.unsubscribe() };
          for await (const batch of batches) {
            if (stopped) break;
            await deliver(batch);
          }
          if (!stopped) throw new Error('the KurrentDB subscription ended');
        } catch (error) {
          if (stopped) break;
          options.onError?.(translate(error));
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, retryDelayMs);
            wakeFromPause = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        } finally {
          const ending = live;
          live = undefined;
          ending?.batches.close();
          await ending?.unsubscribe().catch(() => undefined);
        }
      }
    })();
    return {
      async stop() {
        stopped = true;
        wakeFromPause?.();
        live?.batches.close();
        await done;
      },
    };
  }

  async ping(): Promise<void> {
    await this.head();
  }

  async close(): Promise<void> {
    await this.bounded('close', () => this.client.dispose()).catch(() => undefined);
  }

  /** One call, failed with StoreUnavailableError if the server says nothing for timeoutMs. */
  private bounded<T>(what: string, operation: () => Promise<T>): Promise<T> {
    return withTimeout(Promise.resolve().then(operation), this.timeoutMs, () => this.silence(what));
  }

  /** A stream of events, failed with StoreUnavailableError if the server says nothing for timeoutMs between two. */
  private boundedStream<T>(what: string, source: AsyncIterable<T>): AsyncGenerator<T> {
    return idleBounded(source, this.timeoutMs, () => this.silence(what));
  }

  private silence(what: string): StoreUnavailableError {
    return new StoreUnavailableError(ENGINE, new Error(`no answer within ${this.timeoutMs} ms (${what})`));
  }
}

/**
 * DES_CONNECT_TIMEOUT_MS into the connection string, where the user did not set
 * the option. The string reaches both halves of the client: the gRPC-js side
 * (appends, subscriptions) and the Rust bridge (reads), which parse it separately.
 * - defaultDeadline (ms on both sides): each call's deadline (Rust: non-streaming calls only).
 * - discoveryInterval/maxDiscoverAttempts (ms and a count on both sides): rediscovery
 *   keeps trying for about the connect timeout, then fails ("Failed to discover …").
 * Not set: gossipTimeout is seconds on the JS side (discovery.js createDeadline) but
 * milliseconds in the Rust client (grpc.rs, Duration::from_millis), so no value suits
 * both; keepAliveInterval/Timeout below 10 s are ignored by the Rust client. The
 * adapter's own timer bounds every operation whatever the client does.
 */
export function withClientSettings(connectionString: string, connectTimeoutMs: number): string {
  const interval = 100;
  const wanted: Record<string, number> = {
    defaultDeadline: Math.max(1, Math.round(connectTimeoutMs)),
    discoveryInterval: interval,
    maxDiscoverAttempts: Math.max(1, Math.floor(connectTimeoutMs / interval)),
  };
  const trimmed = connectionString.trim().replace(/\/+$/, '');
  const queryAt = trimmed.indexOf('?');
  const given = new Set(
    (queryAt < 0 ? '' : trimmed.slice(queryAt + 1))
      .split('&')
      .map((pair) => flat(pair.split('=')[0] ?? ''))
      .filter(Boolean),
  );
  const added = Object.entries(wanted)
    .filter(([key]) => !given.has(flat(key)))
    .map(([key, value]) => `${key}=${value}`);
  if (added.length === 0) return trimmed;
  return `${trimmed}${queryAt < 0 ? '?' : '&'}${added.join('&')}`;
}

/** Option keys as both clients compare them: case-insensitive, '-' and '_' ignored (JS). */
const flat = (key: string) => key.trim().toLowerCase().replace(/[_-]/g, '');

function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

function readPosition(position: number): ReadPosition {
  return position > 0 ? { commit: BigInt(position), prepare: BigInt(position) } : START;
}

/** A position the adapter can use as a number, or undefined (absent, or not a real log position). */
function globalPosition(prepare: bigint | undefined): number | undefined {
  if (prepare === undefined || prepare <= 0n || prepare > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(prepare);
}

function eventPosition(resolved: ResolvedEvent | AllStreamResolvedEvent): number | undefined {
  return globalPosition(resolved.event?.position?.prepare);
}

/**
 * The event a read gave (the event a link resolves to, for an index read),
 * or undefined for what is not one of the log's events. `position`: the
 * event's, as its link names it (the one read when it is not given).
 */
function toStored(
  resolved: ResolvedEvent | AllStreamResolvedEvent,
  position?: number,
): StoredEvent | undefined {
  const event = resolved.event;
  if (!event || !event.isJson || event.streamId.startsWith('$')) return undefined;
  if (position === undefined && !event.position)
    throw new Error('KurrentDB did not return event positions (server older than 22.6)');
  return {
    id: event.id,
    stream: event.streamId,
    revision: Number(event.revision),
    position: position ?? Number(event.position!.prepare),
    type: event.type,
    data: event.data as Record<string, unknown>,
    metadata: (event.metadata ?? {}) as EventMetadata,
    recordedAt: event.created.getTime() * 1000,
  };
}

/** A link event (`$>`) to a stored event, naming its position and instant. */
function linkTo(event: StoredEvent): EventData {
  return binaryEvent({
    type: '$>',
    data: Buffer.from(linkData(event), 'utf8'),
    metadata: { position: event.position, recorded_at: event.recordedAt },
  });
}

function translateAppend(error: unknown, stream: string, expected: ExpectedRevision): Error {
  const e = asCommandError(error);
  if (e instanceof WrongExpectedVersionError) {
    const actual = e.actualState;
    return new WrongExpectedRevisionError(
      stream,
      expected,
      typeof actual === 'bigint' && actual >= 0n ? Number(actual) : 'no_stream',
    );
  }
  if (e instanceof MaxAppendSizeExceededError)
    return new EventTooLargeError(stream, undefined, e.maxAppendSize);
  if (e instanceof AppendRecordSizeExceededError) return new EventTooLargeError(stream, e.size, e.maxSize);
  if (e instanceof TransactionMaxSizeExceededError) return new EventTooLargeError(stream, e.size, e.maxSize);
  return translate(e);
}

/**
 * Transient client errors → StoreUnavailableError (503 + Retry-After). What the
 * client produces for a server it cannot use right now:
 * - gRPC-js side (appends, subscriptions), CommandError.js convertToCommandError:
 *   UNAVAILABLE/INTERNAL/DATA_LOSS → UnavailableError, DEADLINE_EXCEEDED →
 *   DeadlineExceededError, ABORTED (server-side timeout) → TimeoutError,
 *   CANCELLED by the server → CancelledError, "not-leader" → NotLeaderError. A raw
 *   gRPC error can escape unconverted (the server-features call in
 *   ServerFeatures.js), so it is converted here.
 * - Discovery (discovery.js): a plain Error "Failed to discover after N attempts.".
 * - Rust bridge side (reads), bridge error.rs: connection errors → UnavailableError,
 *   NotLeaderError; everything else is an UnknownError carrying the Rust client's
 *   message: "Deadline exceeded", "Connection is closed.", "Server-side error: …"
 *   (gRPC Unavailable/Internal/DataLoss/Unknown, types.rs Error::from_grpc).
 */
function translate(error: unknown): Error {
  const e = asCommandError(error);
  if (e instanceof StoreUnavailableError || e instanceof EventTooLargeError) return e;
  if (isTransient(e)) return new StoreUnavailableError(ENGINE, e);
  return e instanceof Error ? e : new Error(String(e));
}

function isTransient(error: unknown): boolean {
  if (
    error instanceof UnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof TimeoutError ||
    error instanceof NotLeaderError ||
    error instanceof CancelledError
  ) {
    return true;
  }
  if (!(error instanceof Error)) return false;
  if (/^Failed to discover after \d+ attempts/.test(error.message)) return true;
  return (
    error instanceof UnknownError &&
    /^(Deadline exceeded|Connection is closed\.|Server-side error:)/.test(error.message)
  );
}

/** gRPC ServiceErrors (numeric `code`, string `details`) as the client's own error classes. */
function asCommandError(error: unknown): unknown {
  if (!(error instanceof Error) || isCommandError(error)) return error;
  const raw = error as Error & { code?: unknown; details?: unknown };
  if (typeof raw.code !== 'number' || typeof raw.details !== 'string') return error;
  return convertToCommandError(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Iterates `source`, failing when one step takes longer than `ms`; an abandoned source is closed without waiting. */
async function* idleBounded<T>(
  source: AsyncIterable<T>,
  ms: number,
  onTimeout: () => Error,
): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const step = await withTimeout(
        Promise.resolve().then(() => iterator.next()),
        ms,
        onTimeout,
      );
      if (step.done) {
        finished = true;
        return;
      }
      yield step.value;
    }
  } finally {
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}
