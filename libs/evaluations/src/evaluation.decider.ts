import type { Decider, DomainEvent } from '#des/kernel';
import type { PolicyErrorKind } from '#des/policy-engine';
import type { EvaluationRequest } from './evaluation-request';

export const evaluationStream = (org: string, id: string) => `evaluation-${org}/${id}`;

export type EvaluationEvent =
  | DomainEvent<
      'evaluation_requested',
      EvaluationRequest & {
        id: string;
        /** When the request was answered, in µs since the epoch (schema 2; schema 1 wrote seconds, upcast on read). */
        requested_at: number;
        /** The log head's instant the trails are folded at, in µs. */
        recorded_at: number;
        /** The log head when the request was accepted: trails are folded up to it (absent in early events). */
        recorded_position?: number;
        params: Record<string, unknown>;
      }
    >
  /** A run of the evaluation began (recorded before its input is assembled): the attempt's number, from 1. */
  | DomainEvent<'evaluation_started', { id: string; attempt: number }>
  | DomainEvent<'evaluation_completed', { id: string; result: { allow: boolean; violations: string[] } }>
  | DomainEvent<'evaluation_failed', { id: string; error: { kind: PolicyErrorKind; message: string } }>;

export type EvaluationCommand =
  | { kind: 'request'; data: Extract<EvaluationEvent, { type: 'evaluation_requested' }>['data'] }
  /** A run begins: recorded, unless `maxStarts` runs began before without finishing (then it fails). */
  | { kind: 'start'; id: string; maxStarts: number }
  | { kind: 'complete'; id: string; result: { allow: boolean; violations: string[] } }
  | { kind: 'fail'; id: string; error: { kind: PolicyErrorKind; message: string } };

export interface EvaluationState {
  status: 'none' | 'pending' | 'completed' | 'failed';
  /** Runs begun (`evaluation_started`). */
  starts: number;
}

/** Why an evaluation whose runs kept dying under it was given up. */
export const interrupted = (starts: number) =>
  `the evaluation was interrupted ${starts} times (its runs never finished); it is not run again`;

/**
 * An evaluation finishes once: a retried or duplicated job appends nothing
 * more. Each run is recorded before it begins, so a run that took its process
 * down is counted: past `maxStarts` the evaluation fails instead of running again.
 */
export const evaluationDecider: Decider<EvaluationCommand, EvaluationState, EvaluationEvent> = {
  initialState: { status: 'none', starts: 0 },
  evolve(state, event) {
    switch (event.type) {
      case 'evaluation_requested':
        return { ...state, status: 'pending' };
      case 'evaluation_started':
        return { ...state, starts: state.starts + 1 };
      default:
        return { ...state, status: event.type === 'evaluation_completed' ? 'completed' : 'failed' };
    }
  },
  decide(command, state) {
    if (command.kind === 'request') {
      return state.status === 'none' ? [{ type: 'evaluation_requested', data: command.data }] : [];
    }
    if (state.status !== 'pending') return [];
    if (command.kind === 'start') {
      return state.starts >= command.maxStarts
        ? [
            {
              type: 'evaluation_failed',
              data: { id: command.id, error: { kind: 'service_error', message: interrupted(state.starts) } },
            },
          ]
        : [{ type: 'evaluation_started', data: { id: command.id, attempt: state.starts + 1 } }];
    }
    return command.kind === 'complete'
      ? [{ type: 'evaluation_completed', data: { id: command.id, result: command.result } }]
      : [{ type: 'evaluation_failed', data: { id: command.id, error: command.error } }];
  },
};
