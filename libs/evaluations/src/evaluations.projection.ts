import { microsToSeconds } from '#des/event-store';
import type { Projection } from '#des/projections';
import type { EvaluationEvent } from './evaluation.decider';

export const EVALUATIONS = 'evaluations';

export const evaluationsProjection: Projection = {
  name: 'evaluations',
  collections: [{ name: EVALUATIONS, indexes: [] }],
  project(stored) {
    const org = stored.metadata.org as string;
    const event = { type: stored.type, data: stored.data } as EvaluationEvent;
    switch (event.type) {
      case 'evaluation_requested':
        return [
          {
            collection: EVALUATIONS,
            id: `${org}/${event.data.id}`,
            fresh: true,
            update: {
              $set: {
                org,
                id: event.data.id,
                status: 'pending',
                requested_at: microsToSeconds(event.data.requested_at),
                recorded_at: microsToSeconds(event.data.recorded_at),
                recorded_position: event.data.recorded_position,
              },
            },
          },
        ];
      case 'evaluation_started':
        // Still pending for its callers; operators see it running (`des jobs list`).
        return [
          {
            collection: EVALUATIONS,
            id: `${org}/${event.data.id}`,
            update: { $set: { attempts: event.data.attempt, started_at: microsToSeconds(stored.recordedAt) } },
          },
        ];
      case 'evaluation_completed':
        return [
          {
            collection: EVALUATIONS,
            id: `${org}/${event.data.id}`,
            update: { $set: { status: 'completed', result: event.data.result } },
          },
        ];
      case 'evaluation_failed':
        return [
          {
            collection: EVALUATIONS,
            id: `${org}/${event.data.id}`,
            update: { $set: { status: 'failed', error: event.data.error } },
          },
        ];
      default:
        return [];
    }
  },
};
