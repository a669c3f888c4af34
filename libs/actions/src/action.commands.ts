import type { EventMetadata } from '#des/event-store';
import { AggregateCommand, type ExecuteOptions } from '#des/platform';
import { ActionCommand, actionsDecider, ActionEvent, ActionsState, actionsStream } from './action.decider';
import {
  DeliveryCommand,
  deliveryDecider,
  DeliveryEvent,
  DeliveryState,
  deliveryStream,
} from './delivery.decider';

/** A write to an organization's actions: put one, rotate its secret, delete it. */
export class ChangeActions extends AggregateCommand<ActionCommand, ActionsState, ActionEvent> {
  constructor(org: string, command: ActionCommand, metadata: EventMetadata) {
    super(actionsStream(org), actionsDecider, command, metadata);
  }
}

/** A write to one delivery: an attempt's outcome, a dead letter, a redelivery. */
export class ChangeDelivery extends AggregateCommand<DeliveryCommand, DeliveryState, DeliveryEvent> {
  constructor(org: string, command: DeliveryCommand, metadata: EventMetadata, options?: ExecuteOptions) {
    super(deliveryStream(org, command.id), deliveryDecider, command, metadata, options);
  }
}
