import type { Doc, ReadStore } from '#des/read-store';
import { CHECKPOINTS } from './projection';
import { POSITIONS, advanceEach, forgetPositions, positionsFrom } from './checkpoint-positions';
import type { ProjectionFailure } from './projection-failure';

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
 * Where each projection (and `reaction:<name>`) has got to in the log, held in
 * memory and saved in the checkpoints collection; reactions' positions also in
 * a `ReactionCheckpointStore` when the read store does not outlive the process.
 */
export class ProjectionCheckpoints {
  private readonly at = new Map<string, number>();
  /** Checkpoints whose document records a failure, to be cleared once they move on. */
  private failureRecorded = new Set<string>();
  /** Checkpoints moved in memory whose move is not yet written. */
  private readonly deferred = new Set<string>();

  constructor(
    private readonly store: ReadStore,
    private readonly durable?: ReactionCheckpointStore,
  ) {}

  private get collection() {
    return this.store.collection<Checkpoint>(CHECKPOINTS);
  }

  /** Loads the saved positions of these names; returns the lowest (where following starts). */
  async load(names: string[]): Promise<number> {
    const saved = await this.collection.find({});
    const positions = positionsFrom(saved);
    this.failureRecorded = new Set(saved.filter((c) => c.failed).map((c) => c._id));
    const durable = this.durable?.load() ?? {};
    this.at.clear();
    this.deferred.clear();
    for (const name of names) this.at.set(name, Math.max(positions.get(name) ?? 0, durable[name] ?? 0));
    return names.length === 0 ? 0 : Math.min(...names.map((name) => this.of(name)));
  }

  of(name: string): number {
    return this.at.get(name) ?? 0;
  }

  /** Those of these names not yet at `last`. */
  behind(names: string[], last: number): string[] {
    return names.filter((name) => this.of(name) < last);
  }

  /**
   * Moves these checkpoints to `last`: one write to the positions document
   * (with the deferred moves before it), and a failure record cleared for one
   * that was stopped before and now got through. `defer`: held in memory
   * until the next write or `flushDeferred` (reactions', whose re-run after a
   * crash is harmless, so a batch writes the positions document once).
   */
  async advance(names: string[], last: number, options: { defer?: boolean } = {}): Promise<void> {
    if (names.length === 0) return;
    const clearsFailure = names.some((name) => this.failureRecorded.has(name));
    if (options.defer && !clearsFailure) {
      for (const name of names) {
        this.at.set(name, last);
        this.deferred.add(name);
      }
      return;
    }
    await this.writeDeferredWith(names, last);
    for (const name of names) {
      if (this.failureRecorded.has(name)) {
        await this.collection.updateOne({ _id: name }, { $unset: { failed: '' } });
        this.failureRecorded.delete(name);
      }
      this.at.set(name, last);
    }
  }

  /** Writes the deferred moves (when the projector stops). */
  flushDeferred(): Promise<void> {
    return this.writeDeferredWith([], 0);
  }

  /** One write to the positions document: the deferred moves, and these names moved to `last`. */
  private async writeDeferredWith(names: string[], last: number): Promise<void> {
    const moves = new Map<string, number>([...this.deferred].map((name) => [name, this.of(name)]));
    for (const name of names) moves.set(name, last);
    if (moves.size === 0) return;
    await this.collection.updateOne({ _id: POSITIONS }, advanceEach(moves), { upsert: true });
    this.deferred.clear();
  }

  /** Saves a stopped projection's failure in its checkpoint document (readiness reads it). */
  async recordFailure(failure: ProjectionFailure): Promise<void> {
    await this.collection.updateOne(
      { _id: failure.projection },
      { $set: { failed: failure } },
      { upsert: true },
    );
    this.failureRecorded.add(failure.projection);
  }

  /** Starts these projections from the log's beginning (a rebuild). */
  async forget(names: string[]): Promise<void> {
    await this.collection.deleteMany({ _id: { $in: names } });
    await this.collection.updateOne({ _id: POSITIONS }, forgetPositions(names));
    for (const name of names) {
      this.at.set(name, 0);
      this.deferred.delete(name);
      this.failureRecorded.delete(name);
    }
  }

  /** Hands the reactions' positions to the durable store, if there is one. */
  saveReactions(names: string[]): void {
    this.durable?.save(Object.fromEntries(names.map((name) => [name, this.of(name)])));
  }

  /** Writes what the durable store deferred (at stop). */
  flushDurable(): void {
    this.durable?.flush?.();
  }
}
