import type { StoredEvent } from '#des/event-store';
import type { PositionedWrite } from './guarded-write';

/** A projection write waiting to be flushed, with the projection it belongs to. */
export interface PendingWrite extends PositionedWrite {
  projection: string;
  /** The organization of the event that made it: its flush lane. */
  lane: string;
}

/** Pending writes by lane, in order; all in one lane when a document is written in two. */
export function writeLanes(pending: PendingWrite[]): PendingWrite[][] {
  const lanes = new Map<string, PendingWrite[]>();
  const laneOf = new Map<string, string>();
  for (const w of pending) {
    const doc = `${w.write.collection}\u0000${w.write.id}`;
    const seen = laneOf.get(doc);
    if (seen !== undefined && seen !== w.lane) return pending.length ? [pending] : [];
    laneOf.set(doc, w.lane);
    const lane = lanes.get(w.lane);
    if (lane) lane.push(w);
    else lanes.set(w.lane, [w]);
  }
  return [...lanes.values()];
}

/** A lane of reactions stopped: how many reactions it got through, and why. */
export class LaneFailure {
  constructor(
    readonly through: number,
    readonly position: number,
    readonly error: Error,
  ) {}
}

/** A batch's events by organization, each lane in log order (events of no organization in one lane). */
export function lanesByOrganization(batch: StoredEvent[]): Map<string, StoredEvent[]> {
  const lanes = new Map<string, StoredEvent[]>();
  for (const event of batch) {
    const org = typeof event.metadata.org === 'string' ? event.metadata.org : '';
    const lane = lanes.get(org);
    if (lane) lane.push(event);
    else lanes.set(org, [event]);
  }
  return lanes;
}
