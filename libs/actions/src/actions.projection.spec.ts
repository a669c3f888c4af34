import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { actionsProjection } from './actions.projection';

const { given } = projectionSpec(actionsProjection);
const target = { type: 'webhook', webhook: 'https://hooks.example/x' };
const history = [
  {
    stream: 'actions-acme',
    type: 'action_created',
    data: {
      number: 1,
      name: 'notify',
      type: 'environment',
      created_by: 'ci',
      secret_id: 's1',
      environments: ['prod'],
      triggers: ['ON_NON_COMPLIANT_ENV'],
      targets: [target],
      flows: [],
    },
  },
  {
    stream: 'notification-acme/d1',
    type: 'notification_scheduled',
    data: {
      id: 'd1',
      action: 1,
      action_name: 'notify',
      target_index: 0,
      target,
      trigger: 'ON_NON_COMPLIANT_ENV',
      payload: { event_type: 'ON_NON_COMPLIANT_ENV' },
      source_event_id: 'e1',
    },
    at: 10,
  },
  {
    stream: 'notification-acme/d1',
    type: 'notification_failed',
    data: {
      action: 1,
      round: 1,
      attempt: 1,
      status_code: 503,
      duration_ms: 12,
      error: 'HTTP 503',
      dead_lettered: false,
    },
    at: 11,
  },
  {
    stream: 'notification-acme/d1',
    type: 'notification_delivered',
    data: { action: 1, round: 1, attempt: 2, status_code: 200, duration_ms: 8 },
    at: 13,
  },
];

describe('actions projection', () => {
  it('keeps each action without its secret, with the outcome of its latest delivery attempt', async () => {
    await given(...history).then('actions', [
      {
        _id: 'acme/1',
        name: 'notify',
        secret_id: undefined,
        deleted: false,
        is_failing: false,
        last_failure_timestamp: 11,
        last_success_timestamp: 13,
        created_at: 1,
      },
    ]);
  });

  it('keeps each delivery with its status and every attempt', async () => {
    await given(...history).then('deliveries', [
      {
        _id: 'acme/d1',
        status: 'delivered',
        event_type: 'ON_NON_COMPLIANT_ENV',
        scheduled_at: 10,
        delivered_at: 13,
        attempts: [
          {
            round: 1,
            attempt: 1,
            at: 11,
            outcome: 'failed',
            status_code: 503,
            duration_ms: 12,
            error: 'HTTP 503',
          },
          {
            round: 1,
            attempt: 2,
            at: 13,
            outcome: 'delivered',
            status_code: 200,
            duration_ms: 8,
            error: null,
          },
        ],
      },
    ]);
  });
});
