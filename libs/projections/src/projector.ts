import { TimeSlice, type EventStore, type Following, type StoredEvent } from '#des/event-store';
import type { Doc, ReadStore } from '#des/read-store';
import { applyAllOnce, applyOnce } from './guarded-write';
import { BatchOverlay } from './batch-overlay';
import { CHECKPOINTS, DocWrite, Projection, ProjectionReads, declareCollections } from './projection';
import { POSITIONS, advancePositions, forgetPositions, positionsFrom } from './checkpoint-positions';
import { ProjectionProgress, PositionWaiters } from './progress';
import type { Reaction, ReactionEffects } from './reaction';
import { attribute, CannotApply, isOutage, type ProjectionFailure } from './projection-failure';
import { type PendingWrite, writeLanes } from './batch-lanes';
import { ReactionRunner } from './reaction-runner';

export interface ProjectorLogger {
  log(message: string): void;
  error(message: string, error?: unknown): void;
}

export interface ProjectorOptions {
  batchSize?: number;
  logger?: ProjectorLogger;
  /** Called after each document write lands, before the batch's checkpoint: the crash test's hook. */
  afterWrite?: (write: DocWrite) => void;
  /** Most writes sent to the read store in one round trip (default 100). */
  flushSize?: number;
  /** Reactions run after each batch's projections, with checkpoints of their own. */
  reactions?: Reaction[];
  /** What reactions may do besides appending events: commands, jobs (the platform's). */
  effects?: ReactionEffects;
  /**
   * Where reactions' checkpoints outlive the process when the read store
   * does not (the in-memory store): else a restart would run every reaction
   * again over the whole log, against read models still catching up.
   */
  reactionCheckpoints?: ReactionCheckpointStore;
  /**
   * Times an event is tried by a projection whose project() throws or whose
   * write is refused before that projection is stopped (default 3). Read-store
   * outages do not count: they are retried, for every projection, until it is back.
   */
  maxAttempts?: number;
  /** Pause before a failed batch is tried again (default 500 ms). */
  retryDelayMs?: number;
  /** Called when a projection (or reaction) is stopped by an event it cannot apply. */
  onFailure?: (failure: ProjectionFailure) => void;
  /**
   * Called once a batch is applied and checkpointed, with its last event: the
   * read store then holds exactly the events up to it (a consistent point to
   * save an in-memory store at).
   */
  onBatchApplied?: (last: StoredEvent) => void;
}

/** Durable reaction checkpoints, by `reaction:<name>`. */
export interface ReactionCheckpointStore {
  load(): Record<string, number>;
  /** May defer the write (a crash then re-runs reactions since, which are idempotent by id). */
  save(positions: Record<string, number>): void;
  /** Writes what a save deferred; called when the projector stops. */
  flush?(): void;
}

interface Checkpoint extends Doc {
  position?: number;
  /** Present while the projection is stopped by an event it could not apply. */
  failed?: ProjectionFailure;
}

/**
 * Runs projections over the log: catch up, then follow live. Checkpoints are
 * saved after each batch; document position guards make a replay after a
 * crash harmless.
 */
export class Projector implements ProjectionProgress {
  private readonly checkpoints = new Map<string, number>();
  /** Projections (and `reaction:` names) stopped by an event they cannot apply, until a restart or rebuild. */
  private readonly failed = new Map<string, ProjectionFailure>();
  /** Tries so far of an event by a projection that could not apply it, by `name@position`. */
  private readonly attempts = new Map<string, number>();
  private readonly waiters = new PositionWaiters();
  private following?: Following;
  private readonly reads: ProjectionReads;
  private readonly batchSize: number;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly projections: Projection[],
    private readonly options: ProjectorOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.reactions = new ReactionRunner(options.reactions ?? [], events, options.effects, this.slice);
    // A projection that reads sees every write before it: a document through the batch's
    // overlay (no flush); a query after the pending writes are flushed.
    this.reads = {
      get: async (collection, id) => {
        const known = this.overlay.get(collection, id);
        if (known !== undefined) return known as never;
        const stored = await this.store.collection(collection).findOne({ _id: id });
        return this.overlay.load(collection, id, stored, this.pending) as never;
      },
      find: async (collection, filter) => {
        await this.flush();
        return this.store.collection(collection).find(filter) as never;
      },
    };
  }

  private names(): string[] {
    return [
      ...this.projections.map((p) => p.name),
      ...(this.options.reactions ?? []).map((r) => `reaction:${r.name}`),
    ];
  }

  /**
   * The position every running projection has applied. A projection stopped
   * by an event it cannot apply no longer holds it back (it is reported by
   * `failures` instead), so writes keep answering promptly.
   */
  get position(): number {
    return this.waiters.position;
  }

  /** Projections (and reactions, as `reaction:<name>`) stopped by an event they cannot apply. */
  get failures(): ProjectionFailure[] {
    return [...this.failed.values()];
  }

  /** start() and stop() run one at a time, in call order. */
  private lifecycle: Promise<void> = Promise.resolve();

  private serially(step: () => Promise<void>): Promise<void> {
    const run = this.lifecycle.then(step);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }

  /**
   * Starts following the log; a no-op when already following. Calls made
   * while a start or a stop is under way wait for it, so two follow loops
   * can never run at once however slow a start is.
   */
  start(): Promise<void> {
    return this.serially(async () => {
      if (this.following) return;
      await this.startFollowing();
    });
  }

  private async startFollowing(): Promise<void> {
    // A restart retries what stopped a projection before.
    this.failed.clear();
    this.attempts.clear();
    await declareCollections(this.store, this.projections);
    const saved = await this.store.collection<Checkpoint>(CHECKPOINTS).find({});
    const positions = positionsFrom(saved);
    this.failureRecorded = new Set(saved.filter((c) => c.failed).map((c) => c._id));
    const durable = this.options.reactionCheckpoints?.load() ?? {};
    for (const name of this.names()) {
      this.checkpoints.set(name, Math.max(positions.get(name) ?? 0, durable[name] ?? 0));
    }
    const from = Math.min(...this.checkpoints.values(), Number.MAX_SAFE_INTEGER);
    this.waiters.advance(from === Number.MAX_SAFE_INTEGER ? 0 : from);
    this.following = this.events.follow(this.waiters.position, (batch) => this.apply(batch, true), {
      batchSize: this.batchSize,
      retryDelayMs: this.options.retryDelayMs,
      onError: (error) => this.options.logger?.error('projector batch failed; retrying', error),
    });
  }

  /** Resolves once every event appended before the call is applied. */
  async catchUp(timeoutMs = 60_000): Promise<void> {
    const head = await this.events.head();
    if (!(await this.waitFor(head.position, timeoutMs))) {
      throw new Error(`projector did not reach position ${head.position} within ${timeoutMs} ms`);
    }
  }

  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    return this.waiters.waitFor(position, timeoutMs);
  }

  /** Stops following (after a start under way, if any); the batch in flight is finished first. */
  stop(): Promise<void> {
    return this.serially(async () => {
      await this.following?.stop();
      this.following = undefined;
      this.options.reactionCheckpoints?.flush?.();
      this.waiters.cancelAll();
    });
  }

  /** Following the log (a start has completed and no stop since). */
  get running(): boolean {
    return this.following !== undefined;
  }

  /**
   * Drops every read model and replays the whole log into it. Progress is in
   * events: done so far, and the log's event count where the store can tell
   * (undefined on KurrentDB, whose positions are byte offsets, not counts).
   */
  async rebuild(onProgress?: (done: number, total: number | undefined) => void): Promise<number> {
    const running = this.following !== undefined;
    await this.stop();
    for (const p of this.projections) {
      for (const c of p.collections) await this.store.dropCollection(c.name);
    }
    await this.store
      .collection(CHECKPOINTS)
      .deleteMany({ _id: { $in: this.projections.map((p) => p.name) } });
    await this.store
      .collection(CHECKPOINTS)
      .updateOne({ _id: POSITIONS }, forgetPositions(this.projections.map((p) => p.name)));
    this.checkpoints.clear();
    for (const p of this.projections) {
      this.checkpoints.set(p.name, 0);
      this.failed.delete(p.name); // a rebuild retries what stopped a projection
    }
    // Reactions keep their checkpoints: what they appended is in the log already.
    this.waiters.reset();
    await declareCollections(this.store, this.projections);
    const head = await this.events.head();
    const total = await this.events.eventCount();
    let after = 0;
    let done = 0;
    onProgress?.(done, total);
    for (;;) {
      const batch = await this.events.readAll(after, this.batchSize);
      if (batch.length === 0 || batch[0].position > head.position) break;
      await this.apply(batch, false); // reactions are not re-run: their events are in the log already
      after = batch[batch.length - 1].position;
      done += batch.length;
      onProgress?.(done, total);
    }
    if (running) await this.start();
    return done;
  }

  private pending: PendingWrite[] = [];
  private readonly overlay = new BatchOverlay();
  /** Runs the reactions over a batch. */
  private readonly reactions: ReactionRunner;
  /** A batch gives the event loop a turn every 10 ms of its work (ADR 0008). */
  private readonly slice = new TimeSlice();

  /**
   * Sends pending writes in lanes, one per organization, side by side: one
   * organization's many writes do not hold another's few (its read models
   * answer sooner). Each document's writes stay in one lane, in order; a
   * document written for two organizations puts the batch in one lane.
   */
  private async flush(): Promise<void> {
    const pending = this.overlay.coalesce(this.pending);
    this.pending = [];
    // The store now answers for every document: what the overlay knew is read again.
    this.overlay.clear();
    const outcomes = await Promise.allSettled(writeLanes(pending).map((lane) => this.flushLane(lane)));
    const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as Error] : []));
    if (errors.length === 0) return;
    // An outage first (the batch is retried for every projection), else the earliest event refused.
    throw (
      errors.find(isOutage) ??
      errors.reduce((a, b) =>
        a instanceof CannotApply && b instanceof CannotApply && b.position < a.position ? b : a,
      )
    );
  }

  /** Sends one lane's writes, collection by collection (and projection by projection) in order, in bulk. */
  private async flushLane(pending: PendingWrite[]): Promise<void> {
    while (pending.length > 0) {
      const chunk = pending.splice(0, this.options.flushSize ?? 100);
      const groups = new Map<string, PendingWrite[]>();
      for (const w of chunk) {
        const key = `${w.projection}\u0000${w.write.collection}`;
        const list = groups.get(key) ?? [];
        list.push(w);
        groups.set(key, list);
      }
      for (const writes of groups.values()) {
        await this.slice.turn();
        const { projection, write } = writes[0];
        try {
          await applyAllOnce(this.store, write.collection, writes);
        } catch (error) {
          throw isOutage(error) ? error : await this.refusedWrite(projection, writes, error);
        }
        for (const w of writes) this.options.afterWrite?.(w.write);
      }
    }
  }

  /**
   * A run of writes was refused: which one? Each is applied again on its own
   * (all are position-guarded, so those that landed are no-ops) to name the
   * event that cannot be applied.
   */
  private async refusedWrite(projection: string, writes: PendingWrite[], error: unknown): Promise<Error> {
    for (const w of writes) {
      try {
        await applyOnce(this.store, w.write, w.position);
      } catch (refusal) {
        return attribute(refusal, projection, w.position);
      }
    }
    return attribute(error, projection, writes[0].position);
  }

  /**
   * Projects (and, live, reacts to) a batch. An event a projection cannot
   * apply fails the batch; tried `maxAttempts` times, it stops that
   * projection only, and the batch goes on without it. Outages fail the batch
   * for every projection, to be retried until the engine is back.
   */
  private async apply(batch: StoredEvent[], live: boolean): Promise<void> {
    for (;;) {
      try {
        if (live) await this.react(batch, this.reactions.before);
        await this.project(batch);
        if (live) await this.react(batch, this.reactions.after);
        this.attempts.clear();
        return;
      } catch (error) {
        if (!(error instanceof CannotApply)) throw error;
        const key = `${error.projection}@${error.position}`;
        const attempts = (this.attempts.get(key) ?? 0) + 1;
        this.attempts.set(key, attempts);
        if (attempts < (this.options.maxAttempts ?? 3)) {
          if (live) throw error; // the follow loop logs it and tries the batch again after a pause
          continue;
        }
        await this.stopProjection(error, batch);
      }
    }
  }

  /** Logs, records (in its checkpoint, for readiness) and counts a projection stopped by an event. */
  private async stopProjection(error: CannotApply, batch: StoredEvent[]): Promise<void> {
    const event = batch.find((e) => e.position === error.position);
    const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
    const failure: ProjectionFailure = {
      projection: error.projection,
      position: error.position,
      eventType: event?.type,
      eventId: event?.id,
      error: cause,
      at: Date.now(),
    };
    await this.store
      .collection<Checkpoint>(CHECKPOINTS)
      .updateOne({ _id: failure.projection }, { $set: { failed: failure } }, { upsert: true });
    this.failureRecorded.add(failure.projection);
    this.failed.set(failure.projection, failure);
    this.attempts.delete(`${failure.projection}@${failure.position}`);
    this.options.logger?.error(
      `projection ${failure.projection} stopped: it cannot apply the event at log position ${failure.position}` +
        ` (${failure.eventType ?? '?'} ${failure.eventId ?? '?'}): ${cause}; the other projections go on;` +
        ' a restart or a rebuild retries it',
      error.cause,
    );
    this.options.onFailure?.(failure);
  }

  /**
   * Runs reactions over a batch (`ReactionRunner`: in lanes, one per
   * organization) and moves the checkpoints of those every lane got through.
   */
  private async react(batch: StoredEvent[], reactions: Reaction[]): Promise<void> {
    const running = reactions.filter((r) => !this.failed.has(`reaction:${r.name}`));
    if (running.length === 0) return;
    const last = batch[batch.length - 1].position;
    const { through, failure } = await this.reactions.run(
      batch,
      running,
      this.reads,
      (key) => this.checkpoints.get(key) ?? 0,
    );
    const advanced = through
      .map((r) => `reaction:${r.name}`)
      .filter((key) => (this.checkpoints.get(key) ?? 0) < last);
    if (failure) {
      // The failure is what the caller hears of; those that got through keep their progress if they can.
      await this.advanceCheckpoints(advanced, last).catch(() => undefined);
      throw failure;
    }
    await this.advanceCheckpoints(advanced, last);
    const all = this.options.reactions ?? [];
    this.options.reactionCheckpoints?.save(
      Object.fromEntries(
        all.map((r) => [`reaction:${r.name}`, this.checkpoints.get(`reaction:${r.name}`) ?? 0]),
      ),
    );
  }

  /** Checkpoints whose document records a failure, to be cleared once they move on. */
  private failureRecorded = new Set<string>();

  /**
   * Moves these checkpoints (projections or `reaction:` names) to `last`: one
   * write to the positions document, and a failure record cleared for one
   * that was stopped before and now got through.
   */
  private async advanceCheckpoints(keys: string[], last: number): Promise<void> {
    if (keys.length === 0) return;
    const checkpoints = this.store.collection<Checkpoint>(CHECKPOINTS);
    await checkpoints.updateOne({ _id: POSITIONS }, advancePositions(keys, last), { upsert: true });
    for (const key of keys) {
      if (this.failureRecorded.has(key)) {
        await checkpoints.updateOne({ _id: key }, { $unset: { failed: '' } });
        this.failureRecorded.delete(key);
      }
      this.checkpoints.set(key, last);
    }
  }

  private async project(batch: StoredEvent[]): Promise<void> {
    this.overlay.clear();
    try {
      for (const event of batch) {
        await this.slice.turn();
        for (const projection of this.projections) {
          if (this.failed.has(projection.name)) continue;
          if ((this.checkpoints.get(projection.name) ?? 0) >= event.position) continue;
          let writes: DocWrite[];
          try {
            writes = await projection.project(event, this.reads);
          } catch (error) {
            throw attribute(error, projection.name, event.position);
          }
          for (const write of writes) {
            const pending = {
              write,
              position: event.position,
              projection: projection.name,
              lane: typeof event.metadata.org === 'string' ? event.metadata.org : '',
            };
            this.pending.push(pending);
            this.overlay.written(pending);
          }
        }
      }
      await this.flush();
    } finally {
      this.pending = [];
      this.overlay.clear();
    }
    const last = batch[batch.length - 1].position;
    await this.advanceCheckpoints(
      this.projections
        .map((p) => p.name)
        .filter((name) => !this.failed.has(name)) // it stays where it stopped, to be retried from there
        .filter((name) => (this.checkpoints.get(name) ?? 0) < last),
      last,
    );
    this.waiters.advance(last);
    this.options.onBatchApplied?.(batch[batch.length - 1]);
  }
}
