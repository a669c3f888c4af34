import type { EventStore } from '#des/event-store';

/**
 * "Now" for a read that shows or echoes the instant it was made at (a report,
 * the change population): to the microsecond, and never before the last
 * recorded event, so everything acknowledged before the request is in it
 * whatever the clocks of the processes that wrote it.
 */
export async function pinnedNow(events: EventStore): Promise<number> {
  const head = await events.head();
  return Math.max(Math.round(Date.now() * 1000), head.recordedAt) / 1e6;
}
