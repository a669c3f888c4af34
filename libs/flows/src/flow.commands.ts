import type { EventMetadata } from '#des/event-store';
import { AggregateCommand } from '#des/platform';
import { flowDecider, FlowEvent, FlowState, flowStream, PutFlow } from './flow.decider';

/** A write to one flow (handled by the platform's AggregateCommandHandler). */
export class ChangeFlow extends AggregateCommand<PutFlow, FlowState, FlowEvent> {
  constructor(org: string, command: PutFlow, metadata: EventMetadata) {
    super(flowStream(org, command.name), flowDecider, command, metadata);
  }
}
