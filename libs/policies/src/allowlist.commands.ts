import type { EventMetadata } from '#des/event-store';
import { AggregateCommand } from '#des/platform';
import {
  type AllowlistCommand,
  allowlistDecider,
  type AllowlistEvent,
  type AllowlistState,
  allowlistStream,
} from './allowlist.decider';

/** A write to one environment's allow-list. */
export class ChangeAllowlist extends AggregateCommand<AllowlistCommand, AllowlistState, AllowlistEvent> {
  constructor(org: string, command: AllowlistCommand, metadata: EventMetadata) {
    super(allowlistStream(org, command.environment), allowlistDecider, command, metadata);
  }
}
