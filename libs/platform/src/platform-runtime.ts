import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { EventStore } from '#des/event-store';
import type { Jobs } from '#des/jobs';
import {
  CHECKPOINTS,
  CheckpointPoller,
  Lease,
  ProjectionFailure,
  ProjectionProgress,
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
import { ReadModelProgress } from './read-model-progress';
import { SavedReadModels } from './saved-read-models';
import { CONFIG, EVENT_STORE, JOBS, READ_STORE, ROLE } from './tokens';

export const PROJECTIONS = Symbol('PROJECTIONS');
export const REACTIONS = Symbol('REACTIONS');
/** The lease the projector process holds while it applies events (the CLI's rebuild takes it too). */
export const PROJECTOR_LEASE = 'projector';
const CATCH_UP_PROGRESS_MS = 5000;

/**
 * Owns the engines' lifecycle and, in processes that play the projector role,
 * the projector: in-process (embedded, caught up before the API listens) or
 * behind a lease in the shared read store (server mode), so exactly one
 * instance applies the projections.
 */
@Injectable()
export class PlatformRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('projector');
  readonly progress: ProjectionProgress;
  private readonly projector?: Projector;
  private lease?: Lease;
  private leaseTimer?: NodeJS.Timeout;
  /**
   * idle → starting → projecting → stopping → idle. Only a lease check that
   * finds the projector idle starts it, so a slow start never gets a second
   * one beside it; losing the lease while starting stops it once started.
   */
  private state: 'idle' | 'starting' | 'projecting' | 'stopping' = 'idle';
  /** The start or stop under way (resolved when none). */
  private transition: Promise<void> = Promise.resolve();
  /** A lease check is under way: a tick that comes meanwhile is skipped. */
  private checking = false;
  private closing = false;
  /** Checkpoint names of this process's projections and reactions. */
  private readonly checkpointNames: string[];
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
  ) {
    this.checkpointNames = [...projections.map((p) => p.name), ...reactions.map((r) => `reaction:${r.name}`)];
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
            error: (m, e) => this.logger.error({ err: e }, m),
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
            ? reactionCheckpointFile(join(config.dataDir, 'reaction-checkpoints.json'))
            : undefined,
        afterWrite: crashAfterWrites(config.faultKillAfterWrites),
        onFailure: (failure) => metrics.projectionFailures.inc({ projection: failure.projection }),
        onBatchApplied: (last) => this.saved?.batchApplied(last),
      });
      this.progress = this.projector;
    } else if (role === 'cli') {
      // One-off commands read nothing back; the running service's projector picks their events up.
      this.progress = { waitFor: async () => true };
    } else {
      this.progress = new CheckpointPoller(
        reads,
        projections.map((p) => p.name),
      );
    }
    readModelProgress.plug(this.progress);
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

  /** Lowest position every projection of this process has applied (projector roles). */
  get appliedPosition(): number | undefined {
    return this.projector?.position;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.projector) return;
    if (this.reads.kind === 'memory') {
      if (this.saved && this.config.readModelsSaveMs > 0) await this.saved.load();
      await this.startProjecting();
      this.saved?.caughtUp();
      return;
    }
    this.lease = new Lease(this.reads, PROJECTOR_LEASE, this.config.projectorLeaseMs);
    await this.holdLease();
    // Renewals go on while the first catch-up runs, however long it takes.
    this.leaseTimer = setInterval(() => void this.holdLease(), this.config.projectorLeaseMs / 3);
    await this.transition;
  }

  private async startProjecting(): Promise<void> {
    this.state = 'starting';
    try {
      await this.projector!.start();
    } catch (error) {
      await this.projector!.stop();
      if (this.state === 'starting') this.state = 'idle';
      throw error;
    }
    if (this.state !== 'starting') return; // the lease was lost meanwhile: stopProjecting() stops it
    this.state = 'projecting';
    const progress = await this.catchUpProgress();
    try {
      await this.projector!.catchUp();
    } catch (error) {
      if (this.state !== 'projecting') return; // stopped while catching up
      throw error;
    } finally {
      clearInterval(progress);
    }
    this.metrics.projectorPosition.set(this.projector!.position);
    this.logger.log(`read models caught up to log position ${this.projector!.position}`);
  }

  /** A progress line every few seconds while a long catch-up (a rebuild) runs. */
  private async catchUpProgress(): Promise<NodeJS.Timeout> {
    const head = (await this.events.head()).position;
    const timer = setInterval(() => {
      this.logger.log(`read models catching up: log position ${this.projector!.position} of ${head}`);
    }, CATCH_UP_PROGRESS_MS);
    timer.unref();
    return timer;
  }

  private async stopProjecting(): Promise<void> {
    this.state = 'stopping';
    try {
      await this.projector!.stop(); // after the start under way, if any
    } finally {
      this.state = 'idle';
    }
  }

  /** Takes or renews the lease; starts the projector when it is idle and held, stops it when lost. */
  /** Whether "standing by" was logged since the lease was last held (said once, not every check). */
  private waitingSaid = false;

  private async holdLease(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const held = await this.lease!.acquire();
      if (!held && this.state === 'idle' && !this.waitingSaid) {
        this.waitingSaid = true;
        this.logger.log('projector lease held by another instance; standing by');
      }
      if (held) this.waitingSaid = false;
      if (held && this.state === 'idle' && !this.closing) {
        this.transition = this.startProjecting().catch((error: unknown) =>
          this.logger.error({ err: error }, 'projector start failed; retried at the next lease check'),
        );
      } else if (!held && (this.state === 'starting' || this.state === 'projecting')) {
        this.logger.warn('projector lease lost; stopping');
        this.transition = this.stopProjecting().catch((error: unknown) =>
          this.logger.error({ err: error }, 'projector stop failed'),
        );
      }
    } catch (error) {
      this.logger.error({ err: error }, 'projector lease check failed');
    } finally {
      this.checking = false;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    if (this.projector) await this.stopProjecting(); // a start under way ends first, then stops
    await this.transition;
    await this.saved?.close();
    await this.lease?.release().catch(() => undefined);
    await this.jobs.close();
    await this.reads.close();
    await this.events.close();
  }
}

/** Fault injection for the crash test: SIGKILL this process after `limit` read-model writes. */
function crashAfterWrites(limit: number | undefined): (() => void) | undefined {
  if (!limit) return undefined;
  let writes = 0;
  return () => {
    if (++writes >= limit) process.kill(process.pid, 'SIGKILL');
  };
}
