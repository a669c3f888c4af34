import type { TimeSlice } from '#des/event-store';
import type { ReadStore } from '#des/read-store';
import { applyAllOnce, applyOnce } from './guarded-write';
import { BatchOverlay } from './batch-overlay';
import type { DocWrite, ProjectionReads } from './projection';
import { attribute, CannotApply, isOutage } from './projection-failure';
import { type PendingWrite, writeLanes } from './batch-lanes';

export interface BatchWritesOptions {
  /** Most writes sent to the read store in one round trip (default 100). */
  flushSize?: number;
  /** Called after each document write lands. */
  afterWrite?: (write: DocWrite) => void;
}

/**
 * A batch's projection writes: held until the batch is projected, then sent
 * in bulk. A projection that reads sees every write before it: a document
 * through the overlay (no flush); a query after the pending writes are flushed.
 */
export class BatchWrites {
  private pending: PendingWrite[] = [];
  private readonly overlay = new BatchOverlay();
  readonly reads: ProjectionReads;

  constructor(
    private readonly store: ReadStore,
    private readonly slice: TimeSlice,
    private readonly options: BatchWritesOptions = {},
  ) {
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

  add(pending: PendingWrite): void {
    this.pending.push(pending);
    this.overlay.written(pending);
  }

  /** Forgets what is held (a batch ends, written or failed). */
  clear(): void {
    this.pending = [];
    this.overlay.clear();
  }

  /**
   * Sends pending writes in lanes, one per organization, side by side: one
   * organization's many writes do not hold another's few (its read models
   * answer sooner). Each document's writes stay in one lane, in order; a
   * document written for two organizations puts the batch in one lane.
   */
  async flush(): Promise<void> {
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
        if (this.slice.due) await this.slice.turn();
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
}
