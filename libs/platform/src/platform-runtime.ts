import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
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
export class PlatformRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('projector');
  private readonly projector?: Projector;
  /** Starts and stops the projector, under the lease in server mode. */
  private readonly lifecycle?: ProjectorLifecycle;
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
      readModelProgress.plug(this.projector);
      this.lifecycle = new ProjectorLifecycle(this.projector, events, metrics, this.logger);
    } else if (role === 'cli') {
      // One-off commands read nothing back; the running service's projector picks their events up.
      readModelProgress.plug({ waitFor: async () => true });
    } else {
      readModelProgress.plug(
        new CheckpointPoller(
          reads,
          projections.map((p) => p.name),
        ),
      );
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

  /** Lowest position every projection of this process has applied (projector roles). */
  get appliedPosition(): number | undefined {
    return this.projector?.position;
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

  async onApplicationShutdown(): Promise<void> {
    await this.lifecycle?.close();
    await this.saved?.close();
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
