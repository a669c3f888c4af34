import type { EventMetadata } from '#des/event-store';
import { AggregateCommand } from '#des/platform';
import { TrailCommand, trailDecider, TrailState } from './trail.decider';
import { TrailEvent, trailStream } from './trail.events';

/** A write to one trail: report it, an artifact it built, or an attestation on it. */
export class ChangeTrail extends AggregateCommand<TrailCommand, TrailState, TrailEvent> {
  constructor(org: string, flow: string, trail: string, command: TrailCommand, metadata: EventMetadata) {
    super(trailStream(org, flow, trail), trailDecider, command, metadata);
  }
}
