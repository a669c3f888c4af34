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
  | DomainEvent<'evaluation_completed', { id: string; result: { allow: boolean; violations: string[] } }>
  | DomainEvent<'evaluation_failed', { id: string; error: { kind: PolicyErrorKind; message: string } }>;

export type EvaluationCommand =
  | { kind: 'request'; data: Extract<EvaluationEvent, { type: 'evaluation_requested' }>['data'] }
  | { kind: 'complete'; id: string; result: { allow: boolean; violations: string[] } }
  | { kind: 'fail'; id: string; error: { kind: PolicyErrorKind; message: string } };

export interface EvaluationState {
  status: 'none' | 'pending' | 'completed' | 'failed';
}

/** An evaluation finishes once: a retried or duplicated job appends nothing more. */
export const evaluationDecider: Decider<EvaluationCommand, EvaluationState, EvaluationEvent> = {
  initialState: { status: 'none' },
  evolve(_state, event) {
    if (event.type === 'evaluation_requested') return { status: 'pending' };
    return { status: event.type === 'evaluation_completed' ? 'completed' : 'failed' };
  },
  decide(command, state) {
    if (command.kind === 'request') {
      return state.status === 'none' ? [{ type: 'evaluation_requested', data: command.data }] : [];
    }
    if (state.status !== 'pending') return [];
    return command.kind === 'complete'
      ? [{ type: 'evaluation_completed', data: { id: command.id, result: command.result } }]
      : [{ type: 'evaluation_failed', data: { id: command.id, error: command.error } }];
  },
};
