import type { Decider, DomainEvent } from '#des/kernel';
import { DomainError } from '#des/kernel';
import type { Target, Trigger } from './action.decider';

/** One notification: one (environment event, action, target), delivered at least once, recorded once. */
export const deliveryStream = (org: string, id: string) => `notification-${org}/${id}`;

export const DELIVERY_NOT_FOUND = 'Delivery not found';

export type Scheduled = {
  id: string;
  action: number;
  action_name: string;
  target_index: number;
  target: Target;
  trigger: Trigger;
  /** The JSON document sent (a webhook's payload; Slack gets the same facts as a message). */
  payload: Record<string, unknown>;
  /** The environment event that caused it. */
  source_event_id: string;
};

type Attempt = {
  action: number;
  /** 1 for the first sending, +1 for each redelivery of a dead letter. */
  round: number;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
};

export type DeliveryEvent =
  | DomainEvent<'notification_scheduled', Scheduled>
  | DomainEvent<'notification_delivered', Attempt>
  | DomainEvent<'notification_failed', Attempt & { error: string; dead_lettered: boolean }>
  | DomainEvent<'notification_redelivery_requested', { action: number; round: number }>;

export type DeliveryCommand =
  | {
      kind: 'record_attempt';
      id: string;
      round: number;
      attempt: number;
      ok: boolean;
      statusCode: number | null;
      error?: string;
      durationMs: number;
      /** The last try: a failure is dead-lettered. */
      last: boolean;
    }
  /** The queue gave the job up without an attempt recorded as the last (e.g. stalled too often). */
  | { kind: 'dead_letter'; id: string; round: number; error: string }
  | { kind: 'redeliver'; id: string };

export type DeliveryStatus = 'pending' | 'delivered' | 'dead_lettered';

export interface DeliveryState {
  scheduled: Scheduled | null;
  round: number;
  status: DeliveryStatus;
}

/**
 * A delivery's outcomes: the first success of a round is recorded and any
 * later report of that round is ignored (a worker killed after sending and
 * before recording makes the next one send again: at least once, recorded
 * once); a failure on the last try dead-letters it, and only a dead letter
 * may be sent again (a new round).
 */
export const deliveryDecider: Decider<DeliveryCommand, DeliveryState, DeliveryEvent> = {
  initialState: { scheduled: null, round: 1, status: 'pending' },

  evolve(state, event) {
    switch (event.type) {
      case 'notification_scheduled':
        return { ...state, scheduled: event.data };
      case 'notification_delivered':
        return { ...state, status: 'delivered' };
      case 'notification_failed':
        return event.data.dead_lettered ? { ...state, status: 'dead_lettered' } : state;
      case 'notification_redelivery_requested':
        return { ...state, round: event.data.round, status: 'pending' };
    }
  },

  decide(command, state) {
    const scheduled = state.scheduled;
    if (!scheduled) throw new DomainError('not_found', DELIVERY_NOT_FOUND);
    const action = scheduled.action;
    switch (command.kind) {
      case 'record_attempt': {
        if (command.round !== state.round || state.status !== 'pending') return [];
        const attempt = {
          action,
          round: command.round,
          attempt: command.attempt,
          status_code: command.statusCode,
          duration_ms: command.durationMs,
        };
        if (command.ok) return [{ type: 'notification_delivered', data: attempt }];
        return [
          {
            type: 'notification_failed',
            data: { ...attempt, error: command.error ?? 'failed', dead_lettered: command.last },
          },
        ];
      }
      case 'dead_letter':
        if (command.round !== state.round || state.status !== 'pending') return [];
        return [
          {
            type: 'notification_failed',
            data: {
              action,
              round: command.round,
              attempt: 0,
              status_code: null,
              duration_ms: 0,
              error: command.error,
              dead_lettered: true,
            },
          },
        ];
      case 'redeliver':
        if (state.status !== 'dead_lettered') {
          throw new DomainError('invalid', 'Only a dead-lettered delivery can be sent again', {
            delivery: `delivery ${command.id} is ${state.status}`,
          });
        }
        return [{ type: 'notification_redelivery_requested', data: { action, round: state.round + 1 } }];
    }
  },
};
