import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { ActionsController } from './actions.controller';
import { actionsProjection } from './actions.projection';
import { actionTriggersReaction } from './action-triggers.reaction';
import { notificationDispatch } from './notification-dispatch.reaction';
import { NotificationConsumer } from './notification.consumer';

/** Actions: environment notifications to webhooks and Slack, signed, retried, dead-lettered. */
@Module({
  controllers: [ActionsController],
  providers: [NotificationConsumer],
})
export class ActionsModule {}

export const actionsFeature: ServiceFeature = {
  module: ActionsModule,
  projections: [actionsProjection],
  reactions: [actionTriggersReaction, notificationDispatch],
  queueConsumers: [NotificationConsumer],
};
