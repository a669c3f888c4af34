import { aggregateEvent, type DocWrite, type Projection } from '#des/projections';
import { actionsStream, type ActionEvent } from './action.decider';
import type { DeliveryEvent } from './delivery.decider';

export const ACTIONS = 'actions';
export const DELIVERIES = 'deliveries';

export const actionId = (org: string, number: number) => `${org}/${number}`;
export const deliveryId = (org: string, id: string) => `${org}/${id}`;

/**
 * Actions (the spec's Action fields, with the outcome of their latest
 * delivery attempt) and their deliveries (status and every attempt).
 */
export const actionsProjection: Projection = {
  name: 'actions',
  sources: (org) => ({ streams: [actionsStream(org)], prefixes: [`notification-${org}/`] }),
  collections: [
    {
      name: ACTIONS,
      indexes: [
        { name: 'by_org', keys: { org: 1, number: 1 } },
        // Which actions watch an environment: the triggers reaction's question.
        { name: 'by_environment', keys: { org: 1, environments: 1 } },
      ],
    },
    { name: DELIVERIES, indexes: [{ name: 'by_action', keys: { org: 1, action: 1, scheduled_at: -1 } }] },
  ],
  project(stored) {
    const action = aggregateEvent<ActionEvent>(stored, 'actions');
    if (action) {
      const org = stored.metadata.org as string;
      return projectAction(org, action.at, stored.position, action.event);
    }
    const delivery = aggregateEvent<DeliveryEvent>(stored, 'notification');
    if (delivery) return projectDelivery(delivery.org, delivery.id, delivery.at, delivery.event);
    return [];
  },
};

function projectAction(org: string, at: number, position: number, event: ActionEvent): DocWrite[] {
  const id = actionId(org, event.data.number);
  switch (event.type) {
    case 'action_created': {
      const { secret_id: _secret, ...data } = event.data;
      return [
        {
          collection: ACTIONS,
          id,
          update: {
            $set: {
              org,
              ...data,
              is_created_from_slack_app: false,
              created_at: at,
              last_modified_at: at,
              is_failing: false,
              last_success_timestamp: null,
              last_failure_timestamp: null,
              deleted: false,
              // Events logged before the action existed never trigger it.
              created_position: position,
            },
          },
        },
      ];
    }
    case 'action_updated': {
      const { number: _n, ...fields } = event.data;
      return [{ collection: ACTIONS, id, update: { $set: { ...fields, last_modified_at: at } } }];
    }
    case 'action_secret_rotated':
      return [{ collection: ACTIONS, id, update: { $set: { secret_rotated_at: at, last_modified_at: at } } }];
    case 'action_deleted':
      return [{ collection: ACTIONS, id, update: { $set: { deleted: true, deleted_at: at } } }];
  }
}

function projectDelivery(org: string, id: string, at: number, event: DeliveryEvent): DocWrite[] {
  const doc = deliveryId(org, id);
  switch (event.type) {
    case 'notification_scheduled': {
      const { id: _id, source_event_id, ...data } = event.data;
      return [
        {
          collection: DELIVERIES,
          id: doc,
          fresh: true,
          update: {
            $set: {
              org,
              id,
              ...data,
              event_type: data.payload.event_type,
              source_event_id,
              status: 'pending',
              round: 1,
              scheduled_at: at,
              delivered_at: null,
              attempts: [],
            },
          },
        },
      ];
    }
    case 'notification_delivered':
    case 'notification_failed': {
      const delivered = event.type === 'notification_delivered';
      const attempt = {
        round: event.data.round,
        attempt: event.data.attempt,
        at,
        outcome: delivered ? 'delivered' : event.data.dead_lettered ? 'dead_lettered' : 'failed',
        status_code: event.data.status_code,
        duration_ms: event.data.duration_ms,
        error: delivered ? null : event.data.error,
      };
      const status = delivered ? 'delivered' : event.data.dead_lettered ? 'dead_lettered' : 'pending';
      return [
        {
          collection: DELIVERIES,
          id: doc,
          update: {
            $set: { status, last_attempt_at: at, ...(delivered ? { delivered_at: at } : {}) },
            $push: { attempts: attempt },
          },
        },
        {
          collection: ACTIONS,
          id: actionId(org, event.data.action),
          update: {
            $set: delivered
              ? { is_failing: false, last_success_timestamp: at }
              : { is_failing: true, last_failure_timestamp: at },
          },
        },
      ];
    }
    case 'notification_redelivery_requested':
      return [
        {
          collection: DELIVERIES,
          id: doc,
          update: { $set: { status: 'pending', round: event.data.round, redelivery_requested_at: at } },
        },
      ];
  }
}
