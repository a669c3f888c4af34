import { LRUCache } from 'lru-cache';
import { eventSize } from './append-size';
import { TimeSlice } from './time-slice';
import type { EventStore, StoredEvent } from './event-store.port';

/** How far a stream is read: up to an instant, and optionally a log position (a pinned head). */
export interface FoldUntil {
  recordedAt: number;
  position: number;
}

/** A stream folded up to one of its revisions (-1: no event yet). */
export interface Fold<T> {
  revision: number;
  lastRecordedAt: number;
  lastPosition: number;
  value: T | null;
  /** The stored bytes of the events folded (`eventSize`), when the folds measure them; else 0. */
  bytes: number;
}

/** Folds of one stream, by revision: one every FOLD_EVERY events, and the furthest read. */
type Folds<T> = Fold<T>[];

const FOLD_EVERY = 32;

/**
 * A stream's state at an instant, folded from its own events, with folds
 * kept (least recently used streams dropped): one every FOLD_EVERY events
 * and the furthest one read. Streams only grow and `recorded_at` never
 * decreases along a stream, so a fold whose last event is no later than the
 * instant asked for is a prefix of the answer: only the events after the
 * nearest one are read and applied. `evolve` must not mutate: kept folds
 * share what did not change, and callers read them, never change them.
 */
export class StreamFolds<T> {
  private readonly kept: LRUCache<string, Folds<T>>;
  private readonly measure: boolean;

  constructor(
    private readonly events: EventStore,
    private readonly evolve: (value: T | null, event: StoredEvent) => T | null,
    keep: { max: number; maxSize?: number; weight?: (value: T | null) => number; measure?: boolean },
  ) {
    this.measure = keep.measure ?? false;
    this.kept = new LRUCache<string, Folds<T>>({
      max: keep.max,
      ...(keep.maxSize
        ? {
            maxSize: keep.maxSize,
            sizeCalculation: (folds: Folds<T>) =>
              folds.reduce((n, fold) => n + 1 + (keep.weight?.(fold.value) ?? 0), 0),
          }
        : {}),
    });
  }

  async at(stream: string, until: FoldUntil): Promise<Fold<T>> {
    const folds = this.kept.get(stream) ?? [];
    const usable = (f: Fold<T>) => f.lastRecordedAt <= until.recordedAt && f.lastPosition <= until.position;
    const base: Fold<T> = folds.findLast(usable) ?? {
      revision: -1,
      lastRecordedAt: 0,
      lastPosition: 0,
      value: null,
      bytes: 0,
    };
    const events = await this.events.readStream(stream, {
      fromRevision: base.revision + 1,
      untilRecordedAt: until.recordedAt,
      untilPosition: until.position,
    });
    if (events.length === 0) return base;
    let fold = base;
    const made: Folds<T> = [];
    // A long stream (a trail of thousands of artifacts) folds in slices: the loop gets a turn every 10 ms.
    const slice = new TimeSlice();
    for (const event of events) {
      if (slice.due) await slice.turn();
      fold = {
        revision: event.revision,
        lastRecordedAt: event.recordedAt,
        lastPosition: event.position,
        value: this.evolve(fold.value, event),
        bytes: fold.bytes + (this.measure ? eventSize(event) : 0),
      };
      if ((event.revision + 1) % FOLD_EVERY === 0) made.push(fold);
    }
    if (made.at(-1) !== fold) made.push(fold);
    this.kept.set(stream, keptFolds(folds, made));
    return fold;
  }

  /** Drops every kept fold (the next answers fold from scratch). */
  forget(): void {
    this.kept.clear();
  }
}

/** Every FOLD_EVERY-th fold of both lists, and the furthest fold of all, by revision. */
function keptFolds<T>(old: Folds<T>, made: Folds<T>): Folds<T> {
  const byRevision = new Map<number, Fold<T>>();
  for (const fold of [...old, ...made]) byRevision.set(fold.revision, fold);
  const all = [...byRevision.values()].sort((a, b) => a.revision - b.revision);
  const furthest = all.at(-1);
  return all.filter((f) => f === furthest || (f.revision + 1) % FOLD_EVERY === 0);
}
