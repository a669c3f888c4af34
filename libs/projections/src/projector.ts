import { TimeSlice, type EventStore, type Following, type StoredEvent } from '#des/event-store';
import type { ReadStore } from '#des/read-store';
import { DocWrite, Projection, declareCollections } from './projection';
import { ProjectionProgress, PositionWaiters } from './progress';
import type { Reaction, ReactionEffects } from './reaction';
import { attribute, CannotApply, type ProjectionFailure } from './projection-failure';
import { ReactionRunner } from './reaction-runner';
import { BatchWrites } from './batch-writes';
import { ProjectionCheckpoints, type ReactionCheckpointStore } from './projection-checkpoints';
import { dropReadModels, replayLog } from './log-replay';

export type { ReactionCheckpointStore } from './projection-checkpoints';

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

/**
 * Runs projections over the log: catch up, then follow live. Checkpoints are
 * saved after each batch; document position guards make a replay after a
 * crash harmless. Its parts: `BatchWrites` (a batch's writes and their
 * flush), `ProjectionCheckpoints`, `ReactionRunner`, `replayLog` (rebuild).
 */
export class Projector implements ProjectionProgress {
  private readonly checkpoints: ProjectionCheckpoints;
  /** Projections (and `reaction:` names) stopped by an event they cannot apply, until a restart or rebuild. */
  private readonly failed = new Map<string, ProjectionFailure>();
  /** Tries so far of an event by a projection that could not apply it, by `name@position`. */
  private readonly attempts = new Map<string, number>();
  private readonly waiters = new PositionWaiters();
  private following?: Following;
  private readonly batchSize: number;
  /** A batch gives the event loop a turn every 10 ms of its work (ADR 0008). */
  private readonly slice = new TimeSlice();
  private readonly writes: BatchWrites;
  /** Runs the reactions over a batch. */
  private readonly reactions: ReactionRunner;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly projections: Projection[],
    private readonly options: ProjectorOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.checkpoints = new ProjectionCheckpoints(store, options.reactionCheckpoints);
    this.writes = new BatchWrites(store, this.slice, options);
    this.reactions = new ReactionRunner(options.reactions ?? [], events, options.effects, this.slice);
  }

  private reactionNames(): string[] {
    return (this.options.reactions ?? []).map((r) => `reaction:${r.name}`);
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
    const names = [...this.projections.map((p) => p.name), ...this.reactionNames()];
    this.waiters.advance(await this.checkpoints.load(names));
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
      // Unwritten, the reactions re-run from their saved positions at the next start: idempotent by id.
      await this.checkpoints.flushDeferred().catch(() => undefined);
      this.checkpoints.flushDurable();
      this.waiters.cancelAll();
    });
  }

  /** Following the log (a start has completed and no stop since). */
  get running(): boolean {
    return this.following !== undefined;
  }

  /**
   * Drops every read model and replays the whole log into it (`replayLog`
   * says how progress is counted). Reactions keep their checkpoints and are
   * not re-run: what they appended is in the log already.
   */
  async rebuild(onProgress?: (done: number, total: number | undefined) => void): Promise<number> {
    const running = this.following !== undefined;
    await this.stop();
    const names = this.projections.map((p) => p.name);
    await dropReadModels(this.store, this.projections);
    await this.checkpoints.forget(names);
    for (const name of names) this.failed.delete(name); // a rebuild retries what stopped a projection
    this.waiters.reset();
    await declareCollections(this.store, this.projections);
    const done = await replayLog(
      this.events,
      this.batchSize,
      (batch) => this.apply(batch, false),
      onProgress,
    );
    if (running) await this.start();
    return done;
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
        // The moves of the reactions run before are written with the projections' (one write).
        if (live) await this.react(batch, this.reactions.before, true);
        await this.project(batch);
        if (live) await this.react(batch, this.reactions.after, false);
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
    await this.checkpoints.recordFailure(failure);
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
   * organization) and moves the checkpoints of those every lane got through;
   * `defer`: held until the projections' write of the same batch.
   */
  private async react(batch: StoredEvent[], reactions: Reaction[], defer: boolean): Promise<void> {
    const running = reactions.filter((r) => !this.failed.has(`reaction:${r.name}`));
    if (running.length === 0) return;
    const last = batch[batch.length - 1].position;
    const { through, failure } = await this.reactions.run(batch, running, this.writes.reads, (key) =>
      this.checkpoints.of(key),
    );
    const advanced = this.checkpoints.behind(
      through.map((r) => `reaction:${r.name}`),
      last,
    );
    if (failure) {
      // The failure is what the caller hears of; those that got through keep their progress if they can.
      await this.checkpoints.advance(advanced, last, { defer }).catch(() => undefined);
      throw failure;
    }
    await this.checkpoints.advance(advanced, last, { defer });
    this.checkpoints.saveReactions(this.reactionNames());
  }

  private async project(batch: StoredEvent[]): Promise<void> {
    this.writes.clear();
    try {
      for (const event of batch) {
        if (this.slice.due) await this.slice.turn();
        for (const projection of this.projections) {
          if (this.failed.has(projection.name)) continue;
          if (this.checkpoints.of(projection.name) >= event.position) continue;
          let writes: DocWrite[];
          try {
            const projected = projection.project(event, this.writes.reads);
            writes = Array.isArray(projected) ? projected : await projected;
          } catch (error) {
            throw attribute(error, projection.name, event.position);
          }
          const lane = typeof event.metadata.org === 'string' ? event.metadata.org : '';
          for (const write of writes) {
            this.writes.add({ write, position: event.position, projection: projection.name, lane });
          }
        }
      }
      await this.writes.flush();
    } finally {
      this.writes.clear();
    }
    const last = batch[batch.length - 1].position;
    const running = this.projections.map((p) => p.name).filter((name) => !this.failed.has(name)); // a stopped one stays where it stopped, to be retried from there
    await this.checkpoints.advance(this.checkpoints.behind(running, last), last);
    this.waiters.advance(last);
    this.options.onBatchApplied?.(batch[batch.length - 1]);
  }
}
