import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  EventMetadata,
  EventStore,
  EventToAppend,
  WrongExpectedRevisionError,
  nowMicros,
} from '#des/event-store';
import type { ProjectionProgress } from '#des/projections';
import { DomainError } from '#des/kernel';
import type { Config } from './config';
import type { Decider, DomainEvent } from '#des/kernel';
import { EventLogQuota, type QuotaRoom, UNLIMITED_ROOM } from './event-log-quota';
import { AttemptTag, IdempotentAttempt, idempotentAttempts } from './idempotent-attempt';
import { Metrics } from './metrics';
import { CONFIG, EVENT_STORE, PROJECTION_PROGRESS } from './tokens';
import { hasUnseenWrite, noteUnseenWrite } from './unseen-writes';

export interface Executed<S, E> {
  state: S;
  events: E[];
  /** Global position of the last appended event; null when the command changed nothing. */
  position: number | null;
  recordedAt: number | null;
  /**
   * The events were not appended now: an earlier attempt at the same
   * idempotent request appended them before its process died.
   */
  resumed?: boolean;
}

export interface ExecuteOptions {
  /** Wait for the read models to reflect the write (default true); false for streams no read model shows. */
  awaitReadModels?: boolean;
  /** Not one of the request's own writes (an Idempotency-Key's records): never tagged or resumed. */
  standalone?: boolean;
}

const MAX_ATTEMPTS = 10;
/** Folded aggregate states kept per decider (least recently used dropped first). */
const STATE_CACHE_SIZE = 5000;

/** A stream's state folded up to `revision`, the event at global `position`. */
interface Folded<S> {
  revision: number;
  state: S;
  position: number;
}

/**
 * The thin command path: load the stream, fold it, decide, append with the
 * expected revision (retrying a bounded number of times on a conflict, then
 * 409), and answer only once the read models reflect the write.
 */
@Injectable()
export class CommandExecutor {
  private readonly logger = new Logger(CommandExecutor.name);

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(PROJECTION_PROGRESS) private readonly progress: ProjectionProgress,
    @Inject(CONFIG) private readonly config: Config,
    private readonly metrics: Metrics,
    private readonly quota: EventLogQuota,
  ) {}

  /**
   * The stream's state and revision. Folded states are cached per decider and
   * stream; a load reads only the events after the cached revision, so a
   * long-lived aggregate costs its new events, not its whole history. (Events
   * are immutable, so a cache filled by this process stays right when others write.)
   */
  async load<C, S, E extends DomainEvent>(
    stream: string,
    decider: Decider<C, S, E>,
  ): Promise<{ state: S; revision: number; position: number | null }> {
    const cache = this.cacheOf<S>(decider);
    const cached = cache.get(stream);
    const from = cached ? cached.revision + 1 : 0;
    const newer = await this.events.readStream(stream, { fromRevision: from });
    const state = newer.reduce(
      (s, e) => decider.evolve(s, { type: e.type, data: e.data } as E, e.recordedAt),
      cached?.state ?? decider.initialState,
    );
    const revision = from + newer.length - 1;
    const position = newer.length ? newer[newer.length - 1].position : (cached?.position ?? null);
    if (position !== null) this.remember(cache, stream, revision, state, position);
    return { state, revision, position };
  }

  /** Per stream, the end of the last write to it this process started. */
  private readonly writing = new Map<string, Promise<void>>();

  /**
   * Runs `write` (load, decide, append) once the writes to `stream` this
   * process started before it have appended: concurrent commands on one
   * stream take turns instead of deciding on the same revision and all but
   * one failing on a conflict. The turn ends at the append, not at the
   * read-your-writes wait, so a reaction the projector runs on the same
   * stream is never waiting on a command that waits on the projector.
   */
  private async oneAtATime<T>(stream: string, write: () => Promise<T>): Promise<T> {
    const before = this.writing.get(stream) ?? Promise.resolve();
    let done!: () => void;
    const turn = before.then(() => new Promise<void>((resolve) => (done = resolve)));
    this.writing.set(stream, turn);
    try {
      await before;
      return await write();
    } finally {
      done();
      if (this.writing.get(stream) === turn) this.writing.delete(stream);
    }
  }

  private readonly states = new WeakMap<object, Map<string, Folded<unknown>>>();

  private cacheOf<S>(decider: object): Map<string, Folded<S>> {
    let cache = this.states.get(decider);
    if (!cache) {
      cache = new Map();
      this.states.set(decider, cache);
    }
    return cache as Map<string, Folded<S>>;
  }

  private remember<S>(
    cache: Map<string, Folded<S>>,
    stream: string,
    revision: number,
    state: S,
    position: number,
  ): void {
    if (revision < 0) return;
    cache.delete(stream);
    cache.set(stream, { revision, state, position });
    if (cache.size > STATE_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }

  async execute<C, S, E extends DomainEvent>(
    stream: string,
    decider: Decider<C, S, E>,
    command: C,
    metadata: EventMetadata,
    options: ExecuteOptions = {},
  ): Promise<Executed<S, E>> {
    const request = options.standalone ? undefined : idempotentAttempts.getStore();
    if (request) {
      const write = request.writes.get(stream) ?? 0;
      request.writes.set(stream, write + 1);
      if (request.earlier.length > 0) {
        const resumed = await this.resume(stream, decider, request, write, options);
        if (resumed) return resumed;
      }
      metadata = { ...metadata, idempotency: { claim: request.claim, write } satisfies AttemptTag };
    }
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const outcome = await this.oneAtATime(stream, async () => {
        const { state, revision, position } = await this.load(stream, decider);
        const decided = decider.decide(command, state, { now: nowMicros(), newId: randomUUID });
        if (decided.length === 0) return { state, decided, decidedOn: position };
        const toAppend = decided.map((e) => ({
          id: randomUUID(),
          type: e.type,
          data: { ...e.data },
          metadata,
        }));
        const quota = await this.quotaRoom(toAppend, options);
        try {
          const appended = await this.events.append(stream, toAppend, revision < 0 ? 'no_stream' : revision, {
            admit: quota.admit,
          });
          const next = decided.reduce((s, e) => decider.evolve(s, e, appended.recordedAt), state);
          this.remember(this.cacheOf<S>(decider), stream, appended.nextRevision, next, appended.position);
          return { state: next, decided, appended };
        } catch (error) {
          if (error instanceof WrongExpectedRevisionError) return 'conflict' as const;
          throw error;
        } finally {
          quota.release();
        }
      });
      if (outcome === 'conflict') {
        // Another process wrote the stream meanwhile (this one's writes to it take turns).
        this.metrics.appendConflicts.inc();
        // Jittered back-off so racing writers spread out instead of colliding again.
        await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
        continue;
      }
      const { state, decided, appended, decidedOn } = outcome;
      if (!appended) {
        // Nothing to record: what it was decided on (perhaps a concurrent request's write) is answered
        // from the read models all the same, so they must have reached it too.
        if ((options.awaitReadModels ?? true) && decidedOn != null) await this.awaitReadModels(decidedOn);
        return { state, events: [], position: null, recordedAt: null };
      }
      for (const e of decided) this.metrics.eventsAppended.inc({ type: e.type });
      if (options.awaitReadModels ?? true) await this.awaitReadModels(appended.position);
      return { state, events: decided, position: appended.position, recordedAt: appended.recordedAt };
    }
    throw new DomainError('conflict', 'The resource was changed concurrently; retry the request.');
  }

  /**
   * A tenant's write is held to its organization's event-log quota (507 past
   * it, nothing appended). The service's own writes (reactions, workers, the
   * CLI: actor `system`) and a request's bookkeeping (`standalone`) are not:
   * refusing them would stall the projector or strand a request half-settled.
   */
  private quotaRoom(events: EventToAppend[], options: ExecuteOptions): Promise<QuotaRoom> {
    const { org, actor } = events[0].metadata;
    if (!org || actor?.kind === 'system' || options.standalone) return Promise.resolve(UNLIMITED_ROOM);
    return this.quota.room(org);
  }

  /**
   * The write an earlier attempt at this request made to the stream as its
   * `write`-th, if it made it: answered as if appended now (the state as of
   * those events), so the retry neither writes it twice nor answers differently.
   */
  private async resume<C, S, E extends DomainEvent>(
    stream: string,
    decider: Decider<C, S, E>,
    request: IdempotentAttempt,
    write: number,
    options: ExecuteOptions,
  ): Promise<Executed<S, E> | undefined> {
    const history = await this.events.readStream(stream);
    const isEarlier = (tag: unknown) => {
      const t = tag as Partial<AttemptTag> | undefined;
      return t?.write === write && request.earlier.includes(t.claim ?? '');
    };
    const last = history.findLastIndex((e) => isEarlier(e.metadata.idempotency));
    if (last < 0) return undefined;
    const upTo = history.slice(0, last + 1);
    const state = upTo.reduce(
      (s, e) => decider.evolve(s, { type: e.type, data: e.data } as E, e.recordedAt),
      decider.initialState,
    );
    const mine = upTo.filter((e) => isEarlier(e.metadata.idempotency));
    const { position, recordedAt } = history[last];
    this.metrics.resumedWrites.inc();
    if (options.awaitReadModels ?? true) await this.awaitReadModels(position);
    return {
      state,
      events: mine.map((e) => ({ type: e.type, data: e.data }) as E),
      position,
      recordedAt,
      resumed: true,
    };
  }

  /**
   * Read-your-writes: bounded wait for the projector to pass `position`. The
   * write is durable by now, so a slow or unreachable read store never turns
   * it into an error here; past the wait the request is noted (ADR 0045), and
   * its write route answers that the write is recorded rather than read back
   * the state before it. Once noted, the request's later writes do not wait.
   */
  async awaitReadModels(position: number): Promise<void> {
    if (hasUnseenWrite()) return;
    const ok = await this.progress
      .waitFor(position, this.config.readYourWritesTimeoutMs)
      .catch((error: unknown) => {
        this.logger.warn(
          `read-your-writes wait failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        return false;
      });
    if (!ok) {
      noteUnseenWrite();
      this.metrics.readYourWritesTimeouts.inc();
      this.logger.warn(
        `read models did not reach position ${position} within ${this.config.readYourWritesTimeoutMs} ms`,
      );
    }
  }
}
