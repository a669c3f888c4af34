import type { ReadStore } from '#des/read-store';
import { CHECKPOINTS } from './projection';
import { POSITIONS, positionsFrom } from './checkpoint-positions';

/** Read-your-writes: wait until the read models reflect a position of the log. */
export interface ProjectionProgress {
  /** True once every projection has applied `position`; false after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean>;
}

/** Promises resolved as an applied position advances. */
export class PositionWaiters {
  private current = 0;
  private waiting: { position: number; resolve: (ok: boolean) => void; timer: NodeJS.Timeout }[] = [];

  get position(): number {
    return this.current;
  }

  advance(position: number): void {
    if (position <= this.current) return;
    this.current = position;
    const ready = this.waiting.filter((w) => w.position <= position);
    this.waiting = this.waiting.filter((w) => w.position > position);
    for (const w of ready) {
      clearTimeout(w.timer);
      w.resolve(true);
    }
  }

  reset(): void {
    this.current = 0;
  }

  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (position <= this.current) return Promise.resolve(true);
    return new Promise((resolve) => {
      const entry = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiting = this.waiting.filter((w) => w !== entry);
          resolve(false);
        }, timeoutMs),
      };
      this.waiting.push(entry);
    });
  }

  cancelAll(): void {
    for (const w of this.waiting) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    this.waiting = [];
  }
}

/**
 * Read-your-writes for a process that does not run the projector (server-mode
 * API): polls the projector's checkpoints in the shared read store.
 */
export class CheckpointPoller implements ProjectionProgress {
  constructor(
    private readonly store: ReadStore,
    private readonly projectionNames: string[],
    private readonly pollMs = 5,
  ) {}

  /**
   * The position every running projection has applied. One stopped by an
   * event it cannot apply (its checkpoint says `failed`) does not hold writes
   * back: readiness reports it instead.
   */
  async appliedPosition(): Promise<number> {
    const docs = await this.store
      .collection(CHECKPOINTS)
      .find({ _id: { $in: [...this.projectionNames, POSITIONS] } });
    const positions = positionsFrom(docs);
    const failed = new Set(docs.filter((d) => d.failed).map((d) => d._id));
    let applied = Number.MAX_SAFE_INTEGER;
    for (const name of this.projectionNames) {
      if (failed.has(name)) continue;
      const position = positions.get(name);
      if (position === undefined) return 0;
      applied = Math.min(applied, position);
    }
    return applied;
  }

  /** The latest read of the checkpoints: waiters that ask within a poll interval share it. */
  private latest?: { at: number; position: Promise<number> };

  private polledPosition(): Promise<number> {
    const now = Date.now();
    if (!this.latest || now - this.latest.at >= this.pollMs) {
      this.latest = { at: now, position: this.appliedPosition() };
    }
    return this.latest.position;
  }

  /**
   * Waits polling the checkpoints, at most one read per poll interval for all
   * waiters (a worker with many jobs recording outcomes reads them once, not once per job).
   */
  async waitFor(position: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await this.polledPosition()) >= position) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }
}
