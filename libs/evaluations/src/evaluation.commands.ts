import type { EventMetadata } from '#des/event-store';
import { AggregateCommand, type ExecuteOptions } from '#des/platform';
import {
  EvaluationCommand,
  evaluationDecider,
  EvaluationEvent,
  EvaluationState,
  evaluationStream,
} from './evaluation.decider';

/** A write to one evaluation: its request (API), then its result or failure (worker). */
export class ChangeEvaluation extends AggregateCommand<EvaluationCommand, EvaluationState, EvaluationEvent> {
  constructor(
    org: string,
    id: string,
    command: EvaluationCommand,
    metadata: EventMetadata,
    options?: ExecuteOptions,
  ) {
    super(evaluationStream(org, id), evaluationDecider, command, metadata, options);
  }
}
