import type { Logger } from '@nestjs/common';
import type { EventStore, Following } from '#des/event-store';
import type { Lease, Projector } from '#des/projections';
import type { Metrics } from './metrics';

const CATCH_UP_PROGRESS_MS = 5000;
/** The same index failure is logged at most this often (an outage fails every pass). */
const INDEX_WARNING_MS = 60_000;

/**
 * Starts and stops a process's projector: at once (embedded, caught up
 * before the API listens), or while this process holds the projector lease
 * in the shared read store (server mode), so exactly one instance applies the
 * projections. The event store's scope index (what past reads of a scope go
 * through, ADR 0032) is kept by the same process while it projects.
 */
export class ProjectorLifecycle {
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
  /** Whether "standing by" was logged since the lease was last held (said once, not every check). */
  private waitingSaid = false;
  /** The scope index kept while projecting. */
  private indexing?: Following;

  constructor(
    private readonly projector: Projector,
    private readonly events: EventStore,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {}

  /** Whether the projector is applying events (in server mode: while this process holds the lease). */
  get projecting(): boolean {
    return this.state === 'projecting';
  }

  /** Takes the lease (or waits for it, renewing its claim) and projects while it is held. */
  async runUnderLease(lease: Lease, leaseMs: number): Promise<void> {
    this.lease = lease;
    await this.holdLease();
    // Renewals go on while the first catch-up runs, however long it takes.
    this.leaseTimer = setInterval(() => void this.holdLease(), leaseMs / 3);
    await this.transition;
  }

  async startProjecting(): Promise<void> {
    this.state = 'starting';
    try {
      await this.projector.start();
    } catch (error) {
      await this.projector.stop();
      if (this.state === 'starting') this.state = 'idle';
      throw error;
    }
    if (this.state !== 'starting') return; // the lease was lost meanwhile: stopProjecting() stops it
    this.state = 'projecting';
    this.indexing = this.events.keepIndex({ onError: this.indexWarning() });
    const progress = await this.catchUpProgress();
    try {
      await this.projector.catchUp();
    } catch (error) {
      if (this.state !== 'projecting') return; // stopped while catching up
      throw error;
    } finally {
      clearInterval(progress);
    }
    this.metrics.projectorPosition.set(this.projector.position);
    this.logger.log(`read models caught up to log position ${this.projector.position}`);
  }

  /** A progress line every few seconds while a long catch-up (a rebuild) runs. */
  private async catchUpProgress(): Promise<NodeJS.Timeout> {
    const head = (await this.events.head()).position;
    const timer = setInterval(() => {
      this.logger.log(`read models catching up: log position ${this.projector.position} of ${head}`);
    }, CATCH_UP_PROGRESS_MS);
    timer.unref();
    return timer;
  }

  private async stopProjecting(): Promise<void> {
    this.state = 'stopping';
    const indexing = this.indexing;
    this.indexing = undefined;
    try {
      await Promise.all([this.projector.stop(), indexing?.stop()]); // after the start under way, if any
    } finally {
      this.state = 'idle';
    }
  }

  /** Logs a failed indexing pass, the same message at most once a minute (the next pass retries). */
  private indexWarning(): (error: unknown) => void {
    const said = new Map<string, number>();
    return (error) => {
      const message = error instanceof Error ? error.message : String(error);
      const now = Date.now();
      if (now - (said.get(message) ?? 0) < INDEX_WARNING_MS) return;
      said.set(message, now);
      this.logger.warn(`event store index not kept up to date: ${message}; retrying`);
    };
  }

  /** Takes or renews the lease; starts the projector when it is idle and held, stops it when lost. */
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

  /** Stops projecting (after a start under way) and gives the lease up. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    await this.stopProjecting(); // a start under way ends first, then stops
    await this.transition;
    await this.lease?.release().catch(() => undefined);
  }
}
