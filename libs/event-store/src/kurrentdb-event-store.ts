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
  convertToCommandError,
  excludeSystemEvents,
  isCommandError,
  streamNameFilter,
  jsonEvent,
} from '@kurrent/kurrentdb-client';
import type {
  AllStreamResolvedEvent,
  AppendStreamState,
  ReadPosition,
  ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { DEFAULT_MAX_APPEND_SIZE, appendSize } from './append-size';
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
  LogHead,
  ReadStreamOptions,
  StoreUnavailableError,
  StoredEvent,
  WrongExpectedRevisionError,
} from './event-store.port';

const ENGINE = 'KurrentDB';

/** The part of the client the adapter uses (tests hand in a fake). */
export type KurrentClient = Pick<
  KurrentDBClient,
  'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'dispose'
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
 */
export class KurrentDbEventStore implements EventStore {
  readonly kind = 'kurrentdb' as const;
  readonly maxAppendSize: number;
  readonly recordedAtPrecisionMicros = 1000;
  private readonly client: KurrentClient;
  private readonly timeoutMs: number;
  private readonly now: () => number;

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

  /** `$all` filtered on the server by stream-name prefix, until an event past the instant or the position. */
  async readStreamsByPrefix(
    prefix: string,
    options: Omit<ReadStreamOptions, 'fromRevision'> = {},
  ): Promise<StoredEvent[]> {
    const until = options.untilRecordedAt ?? Number.MAX_SAFE_INTEGER;
    const untilPosition = options.untilPosition ?? Number.MAX_SAFE_INTEGER;
    const out: StoredEvent[] = [];
    try {
      for await (const resolved of this.boundedStream(
        `read streams ${prefix}*`,
        this.client.readAll({
          direction: FORWARDS,
          fromPosition: START,
          filter: streamNameFilter({ prefixes: [prefix] }),
        }),
      )) {
        const event = toStored(resolved);
        if (!event) continue;
        if (event.recordedAt > until || event.position > untilPosition) break;
        out.push(event);
      }
    } catch (error) {
      throw translate(error);
    }
    return out;
  }

  /**
   * Up to `limit` events after `afterPosition`. Reads with `maxCount`; events the
   * adapter does not deliver (non-JSON, `$` streams) are skipped without ending
   * the read early: only a short page means the end of the log.
   */
  async readAll(afterPosition: number, limit: number): Promise<StoredEvent[]> {
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

function toStored(resolved: ResolvedEvent | AllStreamResolvedEvent): StoredEvent | undefined {
  const event = resolved.event;
  if (!event || !event.isJson || event.streamId.startsWith('$')) return undefined;
  const position = event.position;
  if (!position) throw new Error('KurrentDB did not return event positions (server older than 22.6)');
  return {
    id: event.id,
    stream: event.streamId,
    revision: Number(event.revision),
    position: Number(position.prepare),
    type: event.type,
    data: event.data as Record<string, unknown>,
    metadata: (event.metadata ?? {}) as EventMetadata,
    recordedAt: event.created.getTime() * 1000,
  };
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
