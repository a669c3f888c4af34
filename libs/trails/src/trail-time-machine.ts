import { Inject, Injectable, Module } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { EventStore, StoredEvent } from '#des/event-store';
import { secondsToMicros } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';
import { flowDecider, flowStream, type FlowEvent, type FlowState } from '#des/flows';
import type { FlowTemplate } from '#des/flows';
import { trailStream, type TrailEvent } from './trail.events';
import { evolveTrailView, TrailView } from './trail.view';

/** Folds are shared between callers: read them, never change them. */
export interface TrailAt {
  view: TrailView | null;
  template: FlowTemplate | null;
  flowExists: boolean;
}

/** A stream folded up to one of its revisions. */
interface Fold<T> {
  revision: number;
  lastRecordedAt: number;
  lastPosition: number;
  value: T;
}

/** Folds of one stream, by revision: one every FOLD_EVERY events, and the furthest read. */
type Folds<T> = Fold<T>[];

const FOLD_EVERY = 32;

/** How far the log is read: an instant, and optionally the log head it was pinned to. */
interface Until {
  recordedAt: number;
  position: number;
}

/**
 * Time travel: a trail as it was at an instant, by folding its own stream
 * (and its flow's) up to that recorded instant with the code the live read
 * model uses. Its cost is that trail's history, not the size of the log.
 *
 * Folds are kept (least recently used streams dropped), one every
 * FOLD_EVERY events and the furthest one read: streams only grow and
 * `recorded_at` never decreases along a stream, so a fold whose last event is
 * no later than the instant asked for is a prefix of the answer, and only the
 * events after the nearest such fold are read and applied. Views are evolved
 * without mutation, so kept folds share what did not change.
 */
@Injectable()
export class TrailTimeMachine {
  // Bounded by what the kept folds hold (a fold's artifacts and attestations), so a few very long trails cannot crowd memory.
  private readonly trails = new LRUCache<string, Folds<TrailView | null>>({
    max: 5_000,
    maxSize: 5_000_000,
    sizeCalculation: (folds) => folds.reduce((n, fold) => n + 1 + weight(fold.value), 0),
  });
  private readonly flows = new LRUCache<string, Folds<FlowState | null>>({ max: 1_000 });

  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  /**
   * The trail at `atSeconds`; with `untilPosition`, also no event after that
   * global position (an evaluation pins the log head it was accepted at, so an
   * event recorded later in the same clock tick cannot leak into its result).
   */
  async at(
    org: string,
    flow: string,
    trail: string,
    atSeconds: number,
    untilPosition = Number.MAX_SAFE_INTEGER,
  ): Promise<TrailAt> {
    const until = { recordedAt: secondsToMicros(atSeconds), position: untilPosition };
    const [flowFold, trailFold] = await Promise.all([
      this.fold(this.flows, flowStream(org, flow), until, (state: FlowState | null, e) =>
        flowDecider.evolve(
          state ?? flowDecider.initialState,
          { type: e.type, data: e.data } as FlowEvent,
          e.recordedAt,
        ),
      ),
      this.fold(this.trails, trailStream(org, flow, trail), until, (view: TrailView | null, e) =>
        evolveTrailView(view, org, { type: e.type, data: e.data } as TrailEvent, e.recordedAt),
      ),
    ]);
    return {
      view: trailFold.value,
      template: flowFold.value?.template ?? null,
      flowExists: flowFold.revision >= 0,
    };
  }

  /** Drops every kept fold (the next answers fold from scratch). */
  forget(): void {
    this.trails.clear();
    this.flows.clear();
  }

  private async fold<T>(
    kept: LRUCache<string, Folds<T | null>>,
    stream: string,
    until: Until,
    evolve: (value: T | null, event: StoredEvent) => T | null,
  ): Promise<Fold<T | null>> {
    const folds = kept.get(stream) ?? [];
    const usable = (f: Fold<T | null>) =>
      f.lastRecordedAt <= until.recordedAt && f.lastPosition <= until.position;
    const base: Fold<T | null> = folds.findLast(usable) ?? {
      revision: -1,
      lastRecordedAt: 0,
      lastPosition: 0,
      value: null,
    };
    const events = await this.events.readStream(stream, {
      fromRevision: base.revision + 1,
      untilRecordedAt: until.recordedAt,
      untilPosition: until.position,
    });
    if (events.length === 0) return base;
    let fold = base;
    const made: Fold<T | null>[] = [];
    for (const event of events) {
      fold = {
        revision: event.revision,
        lastRecordedAt: event.recordedAt,
        lastPosition: event.position,
        value: evolve(fold.value, event),
      };
      if ((event.revision + 1) % FOLD_EVERY === 0) made.push(fold);
    }
    if (made.at(-1) !== fold) made.push(fold);
    kept.set(stream, keptFolds(folds, made));
    return fold;
  }
}

const weight = (view: TrailView | null) =>
  view ? view.artifacts.length + Object.keys(view.attestations).length : 0;

/** Every FOLD_EVERY-th fold of both lists, and the furthest fold of all, by revision. */
function keptFolds<T>(old: Folds<T>, made: Folds<T>): Folds<T> {
  const byRevision = new Map<number, Fold<T>>();
  for (const fold of [...old, ...made]) byRevision.set(fold.revision, fold);
  const all = [...byRevision.values()].sort((a, b) => a.revision - b.revision);
  const furthest = all.at(-1);
  return all.filter((f) => f === furthest || (f.revision + 1) % FOLD_EVERY === 0);
}

/** Time travel for trails, shared by the trails API and the evaluation workers. */
@Module({ providers: [TrailTimeMachine], exports: [TrailTimeMachine] })
export class TrailTimeMachineModule {}
