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
 * Folds are kept (least recently used dropped): streams only grow and
 * `recorded_at` never decreases along a stream, so a fold whose last event is
 * no later than the instant asked for is a prefix of the answer, and only the
 * events after it are read. An instant before a kept fold is folded afresh.
 */
@Injectable()
export class TrailTimeMachine {
  // Bounded by the events the kept folds hold, so a few very long trails cannot crowd memory.
  private readonly trails = new LRUCache<string, Fold<TrailView | null>>({
    max: 5_000,
    maxSize: 500_000,
    sizeCalculation: (fold) => fold.revision + 1,
  });
  private readonly flows = new LRUCache<string, Fold<FlowState | null>>({ max: 1_000 });

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
    kept: LRUCache<string, Fold<T | null>>,
    stream: string,
    until: Until,
    evolve: (value: T | null, event: StoredEvent) => T | null,
  ): Promise<Fold<T | null>> {
    const cached = kept.get(stream);
    const base: Fold<T | null> =
      cached && cached.lastRecordedAt <= until.recordedAt && cached.lastPosition <= until.position
        ? cached
        : { revision: -1, lastRecordedAt: 0, lastPosition: 0, value: null };
    const events = await this.events.readStream(stream, {
      fromRevision: base.revision + 1,
      untilRecordedAt: until.recordedAt,
      untilPosition: until.position,
    });
    if (events.length === 0) return base;
    const last = events[events.length - 1];
    const fold = {
      revision: last.revision,
      lastRecordedAt: last.recordedAt,
      lastPosition: last.position,
      value: events.reduce(evolve, base.value),
    };
    if (!cached || cached.revision < fold.revision) kept.set(stream, fold);
    return fold;
  }
}

/** Time travel for trails, shared by the trails API and the evaluation workers. */
@Module({ providers: [TrailTimeMachine], exports: [TrailTimeMachine] })
export class TrailTimeMachineModule {}
