import type { EventStore, StoredEvent } from '#des/event-store';
import type { EvaluationCommand, EvaluationEvent } from './evaluation.decider';
import { evaluationStream } from './evaluation.decider';

/** An organization's evaluation that has not finished, as an operator sees it (`des jobs list`). */
export interface EvaluationJobView {
  id: string;
  kind: 'evaluation';
  /** `running` once a run has begun (it may have died with its process: see `attempts`). */
  state: 'pending' | 'running';
  /** Runs begun. */
  attempts: number;
  /** When it was requested, µs since the epoch. */
  requestedAt: number;
}

/** The cancellation an operator records: the evaluation fails, once, through its decider. */
export const CANCELLED_BY_OPERATOR = 'cancelled by an operator';
export const cancellation = (id: string): EvaluationCommand => ({
  kind: 'fail',
  id,
  error: { kind: 'service_error', message: CANCELLED_BY_OPERATOR },
});

/** The unfinished evaluations among an organization's evaluation events (in log order), oldest first. */
export function unfinishedEvaluations(events: StoredEvent[]): EvaluationJobView[] {
  const jobs = new Map<string, EvaluationJobView>();
  for (const stored of events) {
    const event = { type: stored.type, data: stored.data } as EvaluationEvent;
    if (event.type === 'evaluation_requested') {
      jobs.set(event.data.id, {
        id: event.data.id,
        kind: 'evaluation',
        state: 'pending',
        attempts: 0,
        requestedAt: event.data.requested_at,
      });
    } else if (event.type === 'evaluation_started') {
      const job = jobs.get(event.data.id);
      if (job) jobs.set(job.id, { ...job, state: 'running', attempts: job.attempts + 1 });
    } else {
      jobs.delete(event.data.id);
    }
  }
  return [...jobs.values()];
}

/**
 * Read from the log, not a read model: the same in embedded mode (where the
 * read models live in the service's process) and in server mode. Its cost is
 * the organization's evaluations' history (the scope index of their streams).
 */
export async function listEvaluationJobs(events: EventStore, org: string): Promise<EvaluationJobView[]> {
  const prefix = evaluationStream(org, '');
  return unfinishedEvaluations(await events.readStreamsByPrefix(prefix));
}
