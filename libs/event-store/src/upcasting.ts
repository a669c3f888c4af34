import type {
  AppendOptions,
  AppendResult,
  BatchHandler,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  FollowOptions,
  Following,
  KeepIndexOptions,
  LogHead,
  ReadStats,
  ReadStreamOptions,
  StoredEvent,
} from './event-store.port';

/**
 * One step of an event type's schema: how data written at version `from`
 * reads at `from + 1`. The log is never rewritten: old events are upcast as
 * they are read.
 */
export interface Upcaster {
  type: string;
  from: number;
  upcast(data: Record<string, unknown>): Record<string, unknown>;
}

/** The metadata field naming the schema version an event was written at (absent: 1). */
export const SCHEMA_VERSION = 'schema';

/**
 * The event store as the domain reads it: every event read is upcast to its
 * type's current schema, every event appended is stamped with that version.
 * What is stored stays as written, and the transparency log's leaves hash
 * those bytes: its sequencer and its verification read the store itself, not
 * this view (ADR 0016).
 */
export class UpcastingEventStore implements EventStore {
  private readonly steps = new Map<string, Map<number, Upcaster>>();
  private readonly current = new Map<string, number>();

  constructor(
    readonly inner: EventStore,
    upcasters: Upcaster[],
  ) {
    for (const u of upcasters) {
      const steps = this.steps.get(u.type) ?? new Map<number, Upcaster>();
      if (steps.has(u.from)) throw new Error(`two upcasters of ${u.type} from version ${u.from}`);
      steps.set(u.from, u);
      this.steps.set(u.type, steps);
      this.current.set(u.type, Math.max(this.current.get(u.type) ?? 1, u.from + 1));
    }
    for (const [type, steps] of this.steps) {
      for (let v = 1; v < this.current.get(type)!; v++) {
        if (!steps.has(v)) throw new Error(`${type}: no upcaster from version ${v}`);
      }
    }
  }

  get kind() {
    return this.inner.kind;
  }
  get maxAppendSize() {
    return this.inner.maxAppendSize;
  }
  get recordedAtPrecisionMicros() {
    return this.inner.recordedAtPrecisionMicros;
  }

  /** The version events of `type` are written at now. */
  versionOf(type: string): number {
    return this.current.get(type) ?? 1;
  }

  /** `event` as its type's current schema reads it (itself when it is current). */
  upcast(event: StoredEvent): StoredEvent {
    const steps = this.steps.get(event.type);
    if (!steps) return event;
    let version = Number(event.metadata[SCHEMA_VERSION] ?? 1);
    const target = this.versionOf(event.type);
    if (version >= target) return event;
    let data = event.data;
    for (; version < target; version++) data = steps.get(version)!.upcast(data);
    return { ...event, data };
  }

  append(
    stream: string,
    events: EventToAppend[],
    expected: ExpectedRevision,
    options?: AppendOptions,
  ): Promise<AppendResult> {
    const stamped = events.map((e) =>
      this.current.has(e.type)
        ? { ...e, metadata: { ...e.metadata, [SCHEMA_VERSION]: this.versionOf(e.type) } }
        : e,
    );
    return this.inner.append(stream, stamped, expected, options);
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    return this.all(await this.inner.readStream(stream, options));
  }

  async readStreamsByPrefix(
    prefix: string,
    options?: Omit<ReadStreamOptions, 'fromRevision'>,
  ): Promise<StoredEvent[]> {
    return this.all(await this.inner.readStreamsByPrefix(prefix, options));
  }

  async readAll(afterPosition: number, limit: number): Promise<StoredEvent[]> {
    return this.all(await this.inner.readAll(afterPosition, limit));
  }

  follow(afterPosition: number, handler: BatchHandler, options?: FollowOptions): Following {
    return this.inner.follow(afterPosition, (events) => handler(this.all(events)), options);
  }

  /** The inner store's: upcasting reads nothing more. */
  readStats(): ReadStats {
    return this.inner.readStats();
  }
  catchUpIndex(): Promise<number> {
    return this.inner.catchUpIndex();
  }
  keepIndex(options?: KeepIndexOptions): Following {
    return this.inner.keepIndex(options);
  }

  head(): Promise<LogHead> {
    return this.inner.head();
  }
  positionAt(recordedAt: number): Promise<LogHead> {
    return this.inner.positionAt(recordedAt);
  }
  eventCount(): Promise<number | undefined> {
    return this.inner.eventCount();
  }
  ping(): Promise<void> {
    return this.inner.ping();
  }
  close(): Promise<void> {
    return this.inner.close();
  }

  private all(events: StoredEvent[]): StoredEvent[] {
    return this.steps.size === 0 ? events : events.map((e) => this.upcast(e));
  }
}
