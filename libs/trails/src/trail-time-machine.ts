import { Inject, Injectable, Module } from '@nestjs/common';
import { type EventStore, secondsToMicros, StreamFolds } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';
import { FlowTimeMachine, FlowTimeMachineModule, type FlowTemplate } from '#des/flows';
import { trailStream, type TrailEvent } from './trail.events';
import { evolveTrailView, TrailView } from './trail.view';
import { trailOf } from './trails.projection';

/** Folds are shared between callers: read them, never change them. */
export interface TrailAt {
  view: TrailView | null;
  template: FlowTemplate | null;
  flowExists: boolean;
  /** The stored bytes of the trail's events folded (what assembling it for a policy costs, about). */
  bytes: number;
}

/**
 * Time travel: a trail as it was at an instant, by folding its own stream
 * up to that recorded instant with the code the live read model uses, and
 * its flow as the flows feature's time machine answers it. Its cost is that
 * trail's history, not the size of the log; folds are kept (`StreamFolds`).
 */
@Injectable()
export class TrailTimeMachine {
  // Bounded by what the kept folds hold (a fold's artifacts and attestations), so a few very long trails cannot crowd memory.
  private readonly trails: StreamFolds<TrailView>;

  constructor(
    @Inject(EVENT_STORE) events: EventStore,
    private readonly flows: FlowTimeMachine,
  ) {
    this.trails = new StreamFolds<TrailView>(
      events,
      (view, e) =>
        evolveTrailView(
          view,
          trailOf(e.stream).org,
          { type: e.type, data: e.data } as TrailEvent,
          e.recordedAt,
        ),
      { max: 5_000, maxSize: 5_000_000, weight, measure: true },
    );
  }

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
    const [answer] = await this.atAll(org, [{ flow, trail }], atSeconds, untilPosition);
    return answer;
  }

  /**
   * Several trails at one instant (an evaluation's context): each flow is
   * folded once, however many of its trails are asked for; the answers are
   * in the order of `refs`.
   */
  async atAll(
    org: string,
    refs: { flow: string; trail: string }[],
    atSeconds: number,
    untilPosition = Number.MAX_SAFE_INTEGER,
  ): Promise<TrailAt[]> {
    const until = { recordedAt: secondsToMicros(atSeconds), position: untilPosition };
    const flows = new Map<string, ReturnType<FlowTimeMachine['at']>>();
    const answers: TrailAt[] = [];
    for (const { flow, trail } of refs) {
      let flowAt = flows.get(flow);
      if (!flowAt) flows.set(flow, (flowAt = this.flows.at(org, flow, until)));
      const [{ template, exists }, trailFold] = await Promise.all([
        flowAt,
        this.trails.at(trailStream(org, flow, trail), until),
      ]);
      answers.push({ view: trailFold.value, template, flowExists: exists, bytes: trailFold.bytes });
    }
    return answers;
  }

  /** Drops every kept fold (the next answers fold from scratch). */
  forget(): void {
    this.trails.forget();
    this.flows.forget();
  }
}

const weight = (view: TrailView | null) =>
  view ? view.artifacts.length + Object.keys(view.attestations).length : 0;

/** Time travel for trails, shared by the trails API and the evaluation workers. */
@Module({ imports: [FlowTimeMachineModule], providers: [TrailTimeMachine], exports: [TrailTimeMachine] })
export class TrailTimeMachineModule {}
