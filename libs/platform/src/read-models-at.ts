import { Inject, Injectable } from '@nestjs/common';
import { type EventStore, secondsToMicros, type StoredEvent } from '#des/event-store';
import { applyOnce, declareCollections, type Projection, type ProjectionReads } from '#des/projections';
import { MemoryReadStore, type ReadStore } from '#des/read-store';
import { PROJECTIONS } from './platform-runtime';
import { EVENT_STORE, READ_STORE } from './tokens';

/** The streams a past read folds: named ones, and every stream under a prefix. */
export interface TimeScope {
  streams?: string[];
  prefixes?: string[];
}

/**
 * Time travel for read models: the scope's streams, up to an instant, folded
 * through the very projections the live read models run, into a read store of
 * their own. The caller runs its live query code against that store, so a
 * past answer and the live answer of that instant come from one implementation.
 * Its cost is the scope's history, not the log's.
 */
@Injectable()
export class ReadModelsAt {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(PROJECTIONS) private readonly projections: Projection[],
    @Inject(READ_STORE) private readonly live: ReadStore,
  ) {}

  /** The live read models, or (`at` given) the scope's as they were at that instant. */
  async readsFor(at: number | undefined, scope: TimeScope): Promise<ReadStore> {
    return at === undefined ? this.live : this.at(scope, at);
  }

  async at(scope: TimeScope, atSeconds: number): Promise<ReadStore> {
    const until = { untilRecordedAt: secondsToMicros(atSeconds) };
    const reads = await Promise.all([
      ...(scope.streams ?? []).map((s) => this.events.readStream(s, until)),
      ...(scope.prefixes ?? []).map((p) => this.events.readStreamsByPrefix(p, until)),
    ]);
    const byPosition = new Map<number, StoredEvent>();
    for (const list of reads) for (const e of list) byPosition.set(e.position, e);
    const history = [...byPosition.values()].sort((a, b) => a.position - b.position);

    const store = new MemoryReadStore();
    await declareCollections(store, this.projections);
    const projectionReads: ProjectionReads = {
      get: async (collection, id) => (await store.collection(collection).findOne({ _id: id })) as never,
      find: async (collection, filter) => (await store.collection(collection).find(filter)) as never,
    };
    for (const event of history) {
      for (const projection of this.projections) {
        for (const write of await projection.project(event, projectionReads))
          await applyOnce(store, write, event.position);
      }
    }
    return store;
  }
}
