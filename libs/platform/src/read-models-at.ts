import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { type EventStore, secondsToMicros, type StoredEvent, TimeSlice } from '#des/event-store';
import {
  applyOnce,
  declareCollections,
  type Projection,
  type ProjectionReads,
  type StreamSources,
} from '#des/projections';
import { MemoryReadStore, type ReadStore } from '#des/read-store';
import { PROJECTIONS } from './platform-runtime';
import { EVENT_STORE, READ_STORE } from './tokens';

/**
 * What a past read needs: the read models of these projections, for `org`
 * (of one entity, where `within` names it, as each projection's `sources`
 * reads it). The streams folded are those the projections declare.
 */
export interface TimeScope {
  org: string;
  projections: Projection[];
  within?: string;
}

/** The streams the scope's projections declare they are made of. */
function sourcesOf(scope: TimeScope): Required<StreamSources> {
  const streams = new Set<string>();
  const prefixes = new Set<string>();
  for (const projection of scope.projections) {
    if (!projection.sources)
      throw new Error(`projection ${projection.name} declares no sources to read at an instant`);
    const sources = projection.sources(scope.org, scope.within);
    for (const s of sources.streams ?? []) streams.add(s);
    for (const p of sources.prefixes ?? []) prefixes.add(p);
  }
  // A stream under one of the prefixes is read with it.
  const all = [...prefixes];
  return {
    streams: [...streams].filter((s) => !all.some((p) => s.startsWith(p))).sort(),
    prefixes: all.sort(),
  };
}

/** Events between two kept folds of a scope (a kept fold costs what changed since the one before: DocTable). */
const RUNG = 8;
/** Documents and events kept, all scopes together (least recently used scopes dropped first). */
const KEPT = 2_000_000;

/**
 * What is known of a scope: its events in position order (complete up to
 * `knownUntil`), and folds of them kept every RUNG events: `rungs[i]` is the
 * read models after the first i × RUNG events. Kept folds are never written.
 */
interface ScopeHistory {
  key: string;
  events: StoredEvent[];
  knownUntil: number;
  rungs: MemoryReadStore[];
}

/**
 * Time travel for read models: the scope's streams, up to an instant, folded
 * through the very projections the live read models run, into a read store of
 * its own. The caller runs its live query code against that store, so a past
 * answer and the live answer of that instant come from one implementation.
 *
 * Its cost is the scope's history, not the log's, and less once a scope has
 * been read: its events are kept, with a fold every RUNG events (a fold
 * shares its documents with the one before and holds only what changed); an
 * instant then costs a copy of the nearest fold before it (what changed since
 * its last compaction) and at most RUNG events applied.
 */
@Injectable()
export class ReadModelsAt {
  private readonly kept = new LRUCache<string, ScopeHistory>({
    maxSize: KEPT,
    sizeCalculation: (h) => {
      const seen = new Set<object>();
      return Math.max(1, h.events.length + h.rungs.reduce((n, r) => n + r.weigh(seen), 0));
    },
  });

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(PROJECTIONS) private readonly projections: Projection[],
    @Inject(READ_STORE) private readonly live: ReadStore,
  ) {}

  /** The live read models, or (`at` given) the scope's as they were at that instant (UNIX seconds). */
  async readsFor(at: number | undefined, scope: TimeScope): Promise<ReadStore> {
    return at === undefined ? this.live : this.at(scope, at);
  }

  async at(scope: TimeScope, atSeconds: number): Promise<ReadStore> {
    const until = secondsToMicros(atSeconds);
    const history = await this.history(scope, until);
    const count = upperBound(history.events, until);
    const rung = Math.floor(count / RUNG);
    const kept = history.rungs.length;
    const reads = (await this.rung(history, rung)).fork();
    // Folds were added: set again, so the cache weighs them.
    if (history.rungs.length !== kept && this.kept.get(history.key) === history)
      this.kept.set(history.key, history);
    await this.apply(reads, history.events.slice(rung * RUNG, count));
    return reads;
  }

  /** The scope's events, complete at least up to `until`: read again only past what is known. */
  private async history(scope: TimeScope, until: number): Promise<ScopeHistory> {
    const sources = sourcesOf(scope);
    const key = JSON.stringify([sources.streams, sources.prefixes]);
    const known = this.kept.get(key);
    if (known && until <= known.knownUntil) return known;
    // Anything committed from now on is recorded at or after the head's instant,
    // so the scope is read whole up to it: later instants before it are then known.
    const head = await this.events.head();
    const knownUntil = head.recordedAt - 1;
    const options = { untilRecordedAt: Math.max(until, knownUntil) };
    const reads = await Promise.all([
      ...sources.streams.map((s) => this.events.readStream(s, options)),
      ...sources.prefixes.map((p) => this.events.readStreamsByPrefix(p, options)),
    ]);
    const byPosition = new Map<number, StoredEvent>();
    for (const list of reads) for (const e of list) byPosition.set(e.position, e);
    const events = [...byPosition.values()].sort((a, b) => a.position - b.position);
    // Kept folds stay good while the events they were made of are the same.
    const same =
      known !== undefined &&
      known.events.length <= events.length &&
      known.events.every((e, i) => e.position === events[i].position);
    const history: ScopeHistory = {
      key,
      events,
      knownUntil,
      rungs: same ? known.rungs : [],
    };
    this.kept.set(key, history);
    return history;
  }

  /** The fold after `index` × RUNG events: kept, or made from the nearest kept one before it. */
  private async rung(history: ScopeHistory, index: number): Promise<MemoryReadStore> {
    if (history.rungs[index]) return history.rungs[index];
    let from = Math.min(index, history.rungs.length);
    while (from > 0 && !history.rungs[from]) from--;
    let store: MemoryReadStore;
    if (history.rungs[from]) {
      store = history.rungs[from].fork();
    } else {
      store = new MemoryReadStore();
      await declareCollections(store, this.projections);
      history.rungs[0] = store.fork();
    }
    // A long history is folded on the in-memory store, whose awaits never yield: the loop gets a
    // turn every 10 ms of it (ADR 0043).
    const slice = new TimeSlice();
    for (let i = from + 1; i <= index; i++) {
      await this.apply(store, history.events.slice((i - 1) * RUNG, i * RUNG), slice);
      history.rungs[i] = store.fork();
    }
    return history.rungs[index];
  }

  private async apply(store: MemoryReadStore, events: StoredEvent[], slice = new TimeSlice()): Promise<void> {
    const reads: ProjectionReads = {
      get: async (collection, id) => (await store.collection(collection).findOne({ _id: id })) as never,
      find: async (collection, filter) => (await store.collection(collection).find(filter)) as never,
    };
    for (const event of events) {
      for (const projection of this.projections) {
        for (const write of await projection.project(event, reads)) {
          if (slice.due) await slice.turn();
          await applyOnce(store, write, event.position);
        }
      }
    }
  }
}

/** How many events (in position order, recorded_at never decreasing) were recorded at or before `until`. */
function upperBound(events: StoredEvent[], until: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid].recordedAt <= until) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
