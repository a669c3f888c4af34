import { microsToSeconds } from '#des/event-store';
import type { Projection } from './projection';

/**
 * Operational read model of the log itself: one document per stream (event
 * count, last type, last recorded instant). Counting with $inc makes it the
 * sharpest check that no event is ever applied twice.
 */
export const streamStatsProjection: Projection = {
  name: 'stream_stats',
  collections: [
    {
      name: 'stream_stats',
      indexes: [{ name: 'by_org', keys: { org: 1, last_recorded_at: -1 } }],
    },
  ],
  project(event) {
    return [
      {
        collection: 'stream_stats',
        id: event.stream,
        ...(event.revision === 0 ? { fresh: true as const } : {}),
        update: {
          $inc: { events: 1 },
          $set: {
            org: event.metadata.org ?? null,
            revision: event.revision,
            last_type: event.type,
            last_recorded_at: microsToSeconds(event.recordedAt),
          },
        },
      },
    ];
  },
};
