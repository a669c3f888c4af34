import type { EventMetadata } from '#des/event-store';
import { AggregateCommand } from '#des/platform';
import { FlowCommand, flowDecider, FlowEvent, FlowState, flowStream } from './flow.decider';

/** A write to one flow: create or update it, change its tags (handled by the platform's AggregateCommandHandler). */
export class ChangeFlow extends AggregateCommand<FlowCommand, FlowState, FlowEvent> {
  constructor(org: string, command: FlowCommand, metadata: EventMetadata) {
    super(flowStream(org, command.name), flowDecider, command, metadata);
  }
}
