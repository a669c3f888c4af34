import type { Upcaster } from '#des/event-store';

/**
 * `evaluation_requested` schema 1 wrote `requested_at` in UNIX seconds, while
 * every other instant of the log (and its own `recorded_at`) is in
 * microseconds; schema 2 writes microseconds. Old events read as schema 2.
 */
export const requestedAtInMicros: Upcaster = {
  type: 'evaluation_requested',
  from: 1,
  upcast: (data) => ({ ...data, requested_at: Math.round(Number(data.requested_at) * 1_000_000) }),
};

export const evaluationUpcasters: Upcaster[] = [requestedAtInMicros];
