import { microsToSeconds } from '#des/event-store';
import type { TrailEvent } from './trail.events';

/** One line of a trail's timeline: one per event of the trail's stream, `seq` being its revision. */
export interface TimelineEntry {
  seq: number;
  type: TrailEvent['type'];
  timestamp: number;
  summary: string;
}

/** The timeline's own collection: one document per entry, so a trail's document never grows with its history. */
export const TRAIL_EVENTS = 'trail_events';

export const timelineEntryId = (trailId: string, seq: number) => `${trailId}#${seq}`;

/** How a trail event reads on the timeline. Pure: the live projection and time travel both use it. */
export function timelineEntry(event: TrailEvent, revision: number, recordedAt: number): TimelineEntry {
  return {
    seq: revision,
    type: event.type,
    timestamp: microsToSeconds(recordedAt),
    summary: summaryOf(event),
  };
}

function summaryOf(event: TrailEvent): string {
  switch (event.type) {
    case 'trail_reported':
      return `trail ${event.data.name} begun`;
    case 'trail_updated':
      return 'trail updated';
    case 'artifact_reported':
      return `artifact ${event.data.filename} reported (${event.data.fingerprint.slice(0, 12)})`;
    case 'attestation_reported': {
      const { type, name, compliant, artifact_fingerprint } = event.data;
      const summary = `${type} attestation ${name}: ${compliant ? 'compliant' : 'non-compliant'}`;
      return artifact_fingerprint ? `${summary} (artifact ${artifact_fingerprint.slice(0, 12)})` : summary;
    }
    case 'artifact_started_running':
    case 'artifact_stopped_running': {
      const { artifact_name, environment, snapshot_index } = event.data;
      const verb = event.type === 'artifact_started_running' ? 'started running in' : 'stopped running in';
      return `${artifact_name} ${verb} ${environment} (snapshot ${snapshot_index})`;
    }
    default:
      return (event as { type: string }).type;
  }
}

/** A page of a timeline, numbered from 1, oldest entries first. */
export interface TimelinePage {
  /** Revisions of the trail's stream on the page: [from, until). */
  from: number;
  until: number;
}

export function timelinePage(total: number, page: number, perPage: number): TimelinePage {
  const from = Math.min((page - 1) * perPage, total);
  return { from, until: Math.min(from + perPage, total) };
}
