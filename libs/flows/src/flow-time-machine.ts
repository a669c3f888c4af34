import { Inject, Injectable, Module } from '@nestjs/common';
import { type EventStore, StreamFolds, type FoldUntil } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';
import type { FlowTemplate } from './flow-template';
import { flowDecider, type FlowEvent, type FlowState, flowStream } from './flow.decider';

/** A flow as it was at an instant. */
export interface FlowAt {
  exists: boolean;
  template: FlowTemplate | null;
}

/** Time travel for flows: a flow at an instant, folded from its own stream (folds kept). */
@Injectable()
export class FlowTimeMachine {
  private readonly folds: StreamFolds<FlowState>;

  constructor(@Inject(EVENT_STORE) events: EventStore) {
    this.folds = new StreamFolds<FlowState>(
      events,
      (state, e) =>
        flowDecider.evolve(
          state ?? flowDecider.initialState,
          { type: e.type, data: e.data } as FlowEvent,
          e.recordedAt,
        ),
      { max: 1_000 },
    );
  }

  /** The flow at `until` (an instant in µs, and optionally a pinned log position). */
  async at(org: string, flow: string, until: FoldUntil): Promise<FlowAt> {
    const fold = await this.folds.at(flowStream(org, flow), until);
    return { exists: fold.revision >= 0, template: fold.value?.template ?? null };
  }

  forget(): void {
    this.folds.forget();
  }
}

/** Time travel for flows, for the features that read a flow as it was. */
@Module({ providers: [FlowTimeMachine], exports: [FlowTimeMachine] })
export class FlowTimeMachineModule {}
