import type { EventMetadata } from '#des/event-store';
import { AggregateCommand } from '#des/platform';
import { ControlCommand, controlDecider, ControlEvent, ControlState, controlStream } from './control.decider';

/** A write to one control: create, update, change its tags. */
export class ChangeControl extends AggregateCommand<ControlCommand, ControlState, ControlEvent> {
  constructor(org: string, command: ControlCommand, metadata: EventMetadata) {
    super(controlStream(org, command.identifier), controlDecider, command, metadata);
  }
}
