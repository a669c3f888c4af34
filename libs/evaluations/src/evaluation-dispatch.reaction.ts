import type { Reaction } from '#des/projections';
import { evaluationJob } from './evaluation-job';

/**
 * Enqueues an evaluation's job once its request is in the log, as
 * notifications are: the job never arrives before what it evaluates, and a
 * replay enqueues nothing twice (the evaluation's id is the job's id).
 */
export const evaluationDispatch: Reaction = {
  name: 'evaluation-dispatch',
  // Enqueued straight from the log: the job reads the evaluation's stream, not the read models.
  needsReadModels: false,
  async react(event, _reads, effects) {
    if (event.type !== 'evaluation_requested' || !event.stream.startsWith('evaluation-')) return [];
    const { id } = event.data as { id: string };
    await effects.enqueue(...evaluationJob(event.metadata.org as string, id));
    return [];
  },
};
