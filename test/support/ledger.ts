import { type EventStore, UpcastingEventStore } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';
import type { TestApp } from './app';
import { readWholeLog } from './log';
import { eventually } from './processes';

/** An organization's events in the log as stored, counted: the size its tree reaches. */
export async function eventsOf(t: TestApp, org: string): Promise<number> {
  const store = t.app.get<symbol, EventStore>(EVENT_STORE);
  const log = await readWholeLog(store instanceof UpcastingEventStore ? store.inner : store);
  return log.filter((e) => e.metadata.org === org).length;
}

export interface Checkpoint {
  origin: string;
  tree_size: number;
  root_hash: string;
  note: string;
  recorded_at: number;
}

/** The organization's latest checkpoint, once it covers every event of it so far (counted again each time). */
export async function checkpointCovering(t: TestApp, org: string): Promise<Checkpoint> {
  const { latest } = await eventually(
    async () => {
      const events = await eventsOf(t, org);
      const res = await t.http.get(`/api/v2/ledger/${org}/checkpoint`);
      return { events, latest: res.status === 200 ? (res.body as Checkpoint) : undefined };
    },
    ({ events, latest }) => latest?.tree_size === events,
  );
  return latest!;
}
