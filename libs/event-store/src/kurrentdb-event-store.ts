import {
  ANY,
  AllStreamResolvedEvent,
  AppendStreamState,
  DeadlineExceededError,
  END,
  FORWARDS,
  BACKWARDS,
  KurrentDBClient,
  NO_STREAM,
  STREAM_EXISTS,
  START,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
} from '@kurrent/kurrentdb-client';
import type { ResolvedEvent } from '@kurrent/kurrentdb-client';
import {
  AppendResult,
  BatchHandler,
  EventMetadata,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  FollowOptions,
  Following,
  LogHead,
  ReadStreamOptions,
  StoreUnavailableError,
  StoredEvent,
  WrongExpectedRevisionError,
} from './event-store.port';

/**
 * KurrentDB adapter (production). The global position is the event's prepare
 * position in the transaction log (unique and increasing along $all);
 * recorded_at is the server's `created` instant.
 */
export class KurrentDbEventStore implements EventStore {
  readonly kind = 'kurrentdb' as const;
  private readonly client: KurrentDBClient;

  constructor(connectionString: string) {
    this.client = KurrentDBClient.connectionString(connectionString);
  }

  async append(stream: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(
        stream,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data, metadata: e.metadata })),
        { streamState: toStreamState(expected) },
      );
      const nextRevision = Number(result.nextExpectedRevision);
      const last = await this.readStream(stream, { fromRevision: nextRevision });
      const recorded = last[last.length - 1];
      return {
        nextRevision,
        position: recorded?.position ?? Number(result.position?.prepare ?? 0),
        recordedAt: recorded?.recordedAt ?? 0,
      };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = await this.currentRevision(stream);
        throw new WrongExpectedRevisionError(stream, expected, actual);
      }
      throw translate(error);
    }
  }

  private async currentRevision(stream: string): Promise<number | 'no_stream'> {
    try {
      for await (const resolved of this.client.readStream(stream, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      })) {
        if (resolved.event) return Number(resolved.event.revision);
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw translate(error);
    }
    return 'no_stream';
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const until = options.untilRecordedAt ?? Number.MAX_SAFE_INTEGER;
    const untilPosition = options.untilPosition ?? Number.MAX_SAFE_INTEGER;
    const out: StoredEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, {
        direction: FORWARDS,
        fromRevision: options.fromRevision ? BigInt(options.fromRevision) : START,
      })) {
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

  async readAll(afterPosition: number, limit: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    const from =
      afterPosition > 0 ? { commit: BigInt(afterPosition), prepare: BigInt(afterPosition) } : START;
    try {
      for await (const resolved of this.client.readAll({
        direction: FORWARDS,
        fromPosition: from,
        maxCount: limit + 1,
        filter: excludeSystemEvents(),
      })) {
        const event = toStored(resolved);
        if (!event || event.position <= afterPosition) continue;
        out.push(event);
        if (out.length === limit) break;
      }
    } catch (error) {
      throw translate(error);
    }
    return out;
  }

  async head(): Promise<LogHead> {
    try {
      for await (const resolved of this.client.readAll({
        direction: BACKWARDS,
        fromPosition: END,
        maxCount: 1,
        filter: excludeSystemEvents(),
      })) {
        const event = toStored(resolved);
        if (event) return { position: event.position, recordedAt: event.recordedAt };
      }
    } catch (error) {
      throw translate(error);
    }
    return { position: 0, recordedAt: 0 };
  }

  follow(afterPosition: number, handler: BatchHandler, options: FollowOptions = {}): Following {
    let stopped = false;
    let position = afterPosition;
    let subscription: ReturnType<KurrentDBClient['subscribeToAll']> | undefined;
    const retryDelayMs = options.retryDelayMs ?? 500;
    const done = (async () => {
      while (!stopped) {
        try {
          subscription = this.client.subscribeToAll({
            fromPosition: position > 0 ? { commit: BigInt(position), prepare: BigInt(position) } : START,
            filter: excludeSystemEvents(),
          });
          for await (const resolved of subscription) {
            if (stopped) break;
            const event = toStored(resolved);
            if (!event || event.position <= position) continue;
            await handler([event]);
            position = event.position;
          }
        } catch (error) {
          if (stopped) break;
          options.onError?.(translate(error));
          await new Promise((r) => setTimeout(r, retryDelayMs));
        } finally {
          await subscription?.unsubscribe().catch(() => undefined);
        }
      }
    })();
    return {
      async stop() {
        stopped = true;
        await subscription?.unsubscribe().catch(() => undefined);
        await done;
      },
    };
  }

  async ping(): Promise<void> {
    await this.head();
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
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

function translate(error: unknown): Error {
  if (error instanceof UnavailableError || error instanceof DeadlineExceededError) {
    return new StoreUnavailableError('KurrentDB', error);
  }
  return error instanceof Error ? error : new Error(String(error));
}
