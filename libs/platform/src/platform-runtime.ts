import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import type { EventStore } from '#des/event-store';
import type { Jobs } from '#des/jobs';
import {
  CHECKPOINTS,
  CheckpointPoller,
  Lease,
  ProjectionFailure,
  Projection,
  Projector,
  Reaction,
  reactionCheckpointFile,
} from '#des/projections';
import { join } from 'node:path';
import { MemoryReadStore, type ReadStore } from '#des/read-store';
import { AggregateCommand } from './aggregate-command';
import { CommandExecutor } from './command-executor';
import { Config, Role, runs } from './config';
import { Metrics } from './metrics';
import { ProjectorLifecycle } from './projector-lifecycle';
import { ReadModelProgress } from './read-model-progress';
import { SavedReadModels } from './saved-read-models';
import { CONFIG, EVENT_STORE, JOBS, READ_STORE, ROLE } from './tokens';
import { causeOf, EngineWatch, type WatchedEngine } from './engine-watch';
import { StorageHealth } from './storage-health';
import { redactUrl } from './settings';
import { TimedOut, withTimeout } from './with-timeout';

export const PROJECTIONS = Symbol('PROJECTIONS');
export const REACTIONS = Symbol('REACTIONS');
/** The lease the projector process holds while it applies events (the CLI's rebuild takes it too). */
export const PROJECTOR_LEASE = 'projector';

/**
 * Owns the engines' lifecycle and, in processes that play the projector role,
 * the projector: made here (with its reactions' command path and the saved
 * read models of embedded mode), started and stopped by `ProjectorLifecycle`.
 */
@Injectable()
export class PlatformRuntime implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('projector');
  private readonly shutdownLogger = new Logger('shutdown');
  /** At start: each engine tried until it answers, every failed try said. */
  private readonly engineWatch: EngineWatch;
  private readonly projector?: Projector;
  /** Starts and stops the projector, under the lease in server mode. */
  private readonly lifecycle?: ProjectorLifecycle;
  /** Checkpoint names of this process's projections and reactions. */
  private readonly checkpointNames: string[];
  /** The projector's checkpoints, as read-your-writes polls them in a process that does not project (or stands by for the lease). */
  private readonly checkpoints?: CheckpointPoller;
  /** When the projector last checkpointed a batch (projector roles). */
  private lastBatchAt = Date.now();
  /** Embedded mode: the in-memory read models saved across restarts. */
  private readonly saved?: SavedReadModels;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(ROLE) private readonly role: Role,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(JOBS) private readonly jobs: Jobs,
    @Inject(PROJECTIONS) projections: Projection[],
    @Inject(REACTIONS) reactions: Reaction[],
    private readonly metrics: Metrics,
    private readonly executor: CommandExecutor,
    readModelProgress: ReadModelProgress,
    storage: StorageHealth,
  ) {
    const engines = new Logger('engines');
    this.engineWatch = new EngineWatch(
      { log: (m) => engines.log(m), warn: (m) => engines.warn(m) },
      config.connectTimeoutMs + 1000,
    );
    this.checkpointNames = [...projections.map((p) => p.name), ...reactions.map((r) => `reaction:${r.name}`)];
    metrics.queueReport = () => jobs.depth();
    metrics.projectorReport = () => this.lag();
    if (runs(role, 'projector')) {
      if (reads instanceof MemoryReadStore && role !== 'cli') {
        this.saved = new SavedReadModels(
          join(config.dataDir, 'read-models.bin'),
          reads,
          events,
          config.readModelsSaveMs,
          {
            log: (m) => this.logger.log(m),
            warn: (m) => this.logger.warn(m),
            error: (m, e) => {
              const fault = storage.failed(e, 'saved read models');
              this.logger.error({ err: e }, fault ? `${m}: ${fault}` : m);
            },
          },
        );
      }
      this.projector = new Projector(events, reads, projections, {
        batchSize: config.projectorBatchSize,
        flushSize: config.projectorFlushSize,
        reactions,
        effects: {
          execute: (command) => this.executeForReaction(command),
          enqueue: (queue, name, data, options) => jobs.enqueue(queue, name, data, options),
        },
        logger: { log: (m) => this.logger.log(m), error: (m, e) => this.logger.error({ err: e }, m) },
        // The in-memory read store forgets checkpoints on restart; reactions must not.
        reactionCheckpoints:
          reads.kind === 'memory'
            ? reactionCheckpointFile(join(config.dataDir, 'reaction-checkpoints.json'), {
                failed: (error) => {
                  const fault = storage.failed(error, 'reaction checkpoints');
                  this.logger.warn(`reaction checkpoints not saved: ${fault ?? causeOf(error)}; retrying`);
                },
                written: () => {
                  storage.succeeded();
                  this.logger.log('reaction checkpoints saved again');
                },
              })
            : undefined,
        afterWrite: crashAfterWrites(config.faultKillAfterWrites),
        onFailure: (failure) => metrics.projectionFailures.inc({ projection: failure.projection }),
        onBatchApplied: (last) => {
          this.lastBatchAt = Date.now();
          this.saved?.batchApplied(last);
        },
      });
      this.lifecycle = new ProjectorLifecycle(this.projector, events, metrics, this.logger);
      if (reads.kind === 'memory' || role === 'cli') {
        readModelProgress.plug(this.projector);
      } else {
        // Server mode: this instance projects only while it holds the lease; standing by, the
        // instance that holds it applies this one's writes, and its checkpoints say how far.
        const projector = this.projector;
        const lifecycle = this.lifecycle;
        const checkpoints = new CheckpointPoller(
          reads,
          projections.map((p) => p.name),
        );
        this.checkpoints = checkpoints;
        readModelProgress.plug({
          waitFor: (position, timeoutMs) =>
            lifecycle.projecting
              ? projector.waitFor(position, timeoutMs)
              : checkpoints.waitFor(position, timeoutMs),
        });
      }
    } else if (role === 'cli') {
      // One-off commands read nothing back; the running service's projector picks their events up.
      readModelProgress.plug({ waitFor: async () => true });
    } else {
      this.checkpoints = new CheckpointPoller(
        reads,
        projections.map((p) => p.name),
      );
      readModelProgress.plug(this.checkpoints);
    }
  }

  /**
   * A reaction's command, on the command path: the write never waits for the
   * read models, which this very projector applies.
   */
  private executeForReaction(command: object): Promise<unknown> {
    if (!(command instanceof AggregateCommand)) {
      throw new Error(`a reaction may only execute aggregate commands, not ${command.constructor.name}`);
    }
    const c = command as AggregateCommand<unknown, unknown, never>;
    return this.executor.execute(c.stream, c.decider, c.command, c.metadata, {
      ...c.options,
      awaitReadModels: false,
    });
  }

  /**
   * Projections (and reactions) stopped by an event they cannot apply, as
   * the projector recorded them in their checkpoints: the same answer in the
   * process that projects and in API processes that do not.
   */
  async failedProjections(): Promise<ProjectionFailure[]> {
    const docs = await this.reads
      .collection(CHECKPOINTS)
      .find({ _id: { $in: this.checkpointNames }, failed: { $exists: true } });
    return docs.map((d) => d.failed as ProjectionFailure);
  }

  /**
   * How far the read models are behind the log: this process's projector's
   * position, or (processes that do not project) what the projector's
   * checkpoints say, as read-your-writes reads them; and the age of the
   * oldest event not applied yet.
   */
  private async lag(): Promise<{ lagPositions: number; lagSeconds: number; checkpointAgeSeconds?: number }> {
    const head = await this.events.head();
    const applied = this.projecting
      ? this.projector!.position
      : ((await this.checkpoints?.appliedPosition()) ?? head.position);
    let lagSeconds = 0;
    if (applied < head.position) {
      const [next] = await this.events.readAll(applied, 1);
      if (next) lagSeconds = Math.max(0, Date.now() / 1000 - next.recordedAt / 1e6);
    }
    return {
      lagPositions: Math.max(0, head.position - applied),
      lagSeconds,
      ...(this.projecting ? { checkpointAgeSeconds: (Date.now() - this.lastBatchAt) / 1000 } : {}),
    };
  }

  /** Lowest position every projection of this process has applied (projector roles). */
  get appliedPosition(): number | undefined {
    return this.projecting ? this.projector!.position : undefined;
  }

  /** Whether this process's projector is applying events now (in server mode, while it holds the lease). */
  private get projecting(): boolean {
    return this.lifecycle?.projecting ?? false;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.lifecycle) return;
    if (this.reads.kind === 'memory') {
      if (this.saved && this.config.readModelsSaveMs > 0) await this.saved.load();
      await this.lifecycle.startProjecting();
      this.saved?.caughtUp();
      return;
    }
    const leaseMs = this.config.projectorLeaseMs;
    await this.lifecycle.runUnderLease(new Lease(this.reads, PROJECTOR_LEASE, leaseMs), leaseMs);
  }

  /** Tries the servers this process needs (not waited for: until they answer, requests get 503 and readiness names them). */
  onModuleInit(): void {
    if (this.role === 'cli') return;
    void this.engineWatch.watch(watchedEngines(this.config, this.events, this.reads, this.jobs));
  }

  /**
   * Stops in order, one log line per step: the projector finishes its batch
   * and checkpoints, the saved read models are written, running jobs finish
   * (or, past the shutdown timeout, are left to their lock and taken up
   * again), then the engines close.
   */
  async onApplicationShutdown(): Promise<void> {
    this.engineWatch.stop();
    const step = async (done: string, work: () => Promise<unknown>) => {
      const started = Date.now();
      await work();
      this.shutdownLogger.log(`${done} (${Date.now() - started} ms)`);
    };
    if (this.lifecycle)
      await step('projector stopped: its batch finished and checkpointed', () => this.lifecycle!.close());
    if (this.saved) await step('read models saved', () => this.saved!.close());
    await step(`job queues closed (${this.jobs.kind})`, () =>
      withTimeout(this.jobs.close(), this.config.shutdownTimeoutMs).catch((error: unknown) => {
        if (!(error instanceof TimedOut)) throw error;
        this.shutdownLogger.warn(
          `jobs still running after ${this.config.shutdownTimeoutMs} ms: left to their lock, another worker takes them up`,
        );
      }),
    );
    await step(`read store closed (${this.reads.kind})`, () => this.reads.close());
    await step(`event store closed (${this.events.kind})`, () => this.events.close());
  }
}

/** The servers a process depends on, as the engine watch tries them. */
function watchedEngines(config: Config, events: EventStore, reads: ReadStore, jobs: Jobs): WatchedEngine[] {
  const engines: WatchedEngine[] = [
    config.eventStore.kind === 'kurrentdb'
      ? { engine: 'KurrentDB', address: redactUrl(config.eventStore.url), ping: () => events.ping() }
      : { engine: 'SQLite', address: config.eventStore.path, ping: () => events.ping() },
  ];
  if (config.readStore.kind === 'mongodb')
    engines.push({ engine: 'MongoDB', address: redactUrl(config.readStore.url), ping: () => reads.ping() });
  if (config.jobs.kind === 'bullmq')
    engines.push({ engine: 'Redis', address: redactUrl(config.jobs.url), ping: () => jobs.ping() });
  return engines;
}

/** Fault injection for the crash test: SIGKILL this process after `limit` read-model writes. */
function crashAfterWrites(limit: number | undefined): (() => void) | undefined {
  if (!limit) return undefined;
  let writes = 0;
  return () => {
    if (++writes >= limit) process.kill(process.pid, 'SIGKILL');
  };
}
