import type { EventMetadata } from '#des/event-store';
import { AggregateCommand, type ExecuteOptions } from '#des/platform';
import {
  EnvironmentCommand,
  environmentDecider,
  EnvironmentEvent,
  EnvironmentState,
  environmentStream,
} from './environment.decider';

/** A write to one environment: create or update it, or report what runs in it. */
export class ChangeEnvironment extends AggregateCommand<
  EnvironmentCommand,
  EnvironmentState,
  EnvironmentEvent
> {
  constructor(org: string, command: EnvironmentCommand, metadata: EventMetadata, options?: ExecuteOptions) {
    super(environmentStream(org, command.name), environmentDecider, command, metadata, options);
  }
}
