import type { EventMetadata } from '#des/event-store';
import { AggregateCommand } from '#des/platform';
import { PolicyCommand, policyDecider, PolicyEvent, PolicyState, policyStream } from './policy.decider';

/** A write to one policy: upload a version of it. */
export class ChangePolicy extends AggregateCommand<PolicyCommand, PolicyState, PolicyEvent> {
  constructor(org: string, command: PolicyCommand, metadata: EventMetadata) {
    super(policyStream(org, command.name), policyDecider, command, metadata);
  }
}
