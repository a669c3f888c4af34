import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import { DeliveryCommand, deliveryDecider, DeliveryEvent } from './delivery.decider';

const { given } = deciderSpec(deliveryDecider);
const scheduled: DeliveryEvent = {
  type: 'notification_scheduled',
  data: {
    id: 'd1',
    action: 4,
    action_name: 'watch',
    target_index: 0,
    target: { type: 'WEBHOOK', webhook: 'https://hooks.example.com/a' },
    trigger: 'ON_STARTED_ARTIFACT',
    payload: { event_type: 'ARTIFACT_STARTED' },
    source_event_id: 'e1',
  },
};
const attempt = (n: number, ok: boolean, last = false, round = 1): DeliveryCommand => ({
  kind: 'record_attempt',
  id: 'd1',
  round,
  attempt: n,
  ok,
  statusCode: ok ? 200 : 500,
  error: ok ? undefined : 'the target answered 500',
  durationMs: 3,
  last,
});
const failed = (n: number, dead: boolean, round = 1): DeliveryEvent => ({
  type: 'notification_failed',
  data: {
    action: 4,
    round,
    attempt: n,
    status_code: 500,
    duration_ms: 3,
    error: 'the target answered 500',
    dead_lettered: dead,
  },
});
const delivered = (n: number, round = 1): DeliveryEvent => ({
  type: 'notification_delivered',
  data: { action: 4, round, attempt: n, status_code: 200, duration_ms: 3 },
});

describe('delivery decider', () => {
  it('records each failed try, dead-letters the last, and a success once', () => {
    given(scheduled)
      .when(attempt(1, false))
      .then([failed(1, false)]);
    given(scheduled, failed(1, false))
      .when(attempt(2, true))
      .then([delivered(2)]);
    given(scheduled, failed(1, false))
      .when(attempt(2, false, true))
      .then([failed(2, true)]);
  });

  it('records a delivery once: a worker sending again after a crash changes nothing', () => {
    given(scheduled, delivered(1)).when(attempt(1, true)).then([]);
    given(scheduled, delivered(1))
      .when(attempt(2, false, true))
      .then([]);
  });

  it('sends a dead letter again in a new round, and only a dead letter', () => {
    const dead = [scheduled, failed(1, false), failed(2, true)];
    given(...dead)
      .when({ kind: 'redeliver', id: 'd1' })
      .then([{ type: 'notification_redelivery_requested', data: { action: 4, round: 2 } }]);
    const again: DeliveryEvent = { type: 'notification_redelivery_requested', data: { action: 4, round: 2 } };
    given(...dead, again)
      .when(attempt(1, true, false, 2))
      .then([delivered(1, 2)]);
    given(...dead, again)
      .when(attempt(3, true, false, 1))
      .then([]); // a late report of round 1
    given(scheduled, delivered(1))
      .when({ kind: 'redeliver', id: 'd1' })
      .thenError('invalid', 'Only a dead-lettered delivery can be sent again');
    given().when({ kind: 'redeliver', id: 'd1' }).thenError('not_found', 'Delivery not found');
  });

  it('dead-letters what the queue gave up on, unless settled', () => {
    given(scheduled)
      .when({ kind: 'dead_letter', id: 'd1', round: 1, error: 'stalled' })
      .then([
        {
          type: 'notification_failed',
          data: {
            action: 4,
            round: 1,
            attempt: 0,
            status_code: null,
            duration_ms: 0,
            error: 'stalled',
            dead_lettered: true,
          },
        },
      ]);
    given(scheduled, failed(1, true)).when({ kind: 'dead_letter', id: 'd1', round: 1, error: 'x' }).then([]);
  });
});
