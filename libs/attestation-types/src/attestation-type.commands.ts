import type { EventMetadata } from '#des/event-store';
import { AggregateCommand } from '#des/platform';
import {
  AttestationTypeCommand as Command,
  attestationTypeDecider,
  AttestationTypeEvent as Event,
  AttestationTypeState as State,
  attestationTypeStream,
} from './attestation-type.decider';

/** A write to one custom attestation type: create it or archive it. */
export class ChangeAttestationType extends AggregateCommand<Command, State, Event> {
  constructor(org: string, command: Command, metadata: EventMetadata) {
    super(attestationTypeStream(org, command.name), attestationTypeDecider, command, metadata);
  }
}
