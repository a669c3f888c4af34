import type { EventMetadata } from '#des/event-store';
import { AggregateCommand } from '#des/platform';
import {
  IdempotencyCommand,
  idempotencyDecider,
  IdempotencyEvent,
  IdempotencyState,
  idempotencyStream,
} from './idempotency.decider';

/**
 * A write to one Idempotency-Key (claim, record the response, release). No
 * read model shows these streams, so the write does not wait for one.
 */
export class ChangeIdempotencyKey extends AggregateCommand<
  IdempotencyCommand,
  IdempotencyState,
  IdempotencyEvent
> {
  constructor(org: string, keyHash: string, command: IdempotencyCommand, metadata: EventMetadata) {
    super(idempotencyStream(org, keyHash), idempotencyDecider, command, metadata, {
      awaitReadModels: false,
      standalone: true,
    });
  }
}
