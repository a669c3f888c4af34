import { Inject, Injectable } from '@nestjs/common';
import { type EventStore, secondsToMicros } from '#des/event-store';
import { EVENT_STORE, READ_STORE } from '#des/platform';
import type { ReadStore } from '#des/read-store';
import { withoutInternals } from '#des/projections';
import { trailStream, type TrailEvent } from './trail.events';
import { TimelineEntry, timelineEntry, timelineEntryId, TimelinePage, TRAIL_EVENTS } from './trail-timeline';
import { type KosliTrailEvent, kosliTrailEvents } from './kosli-trail-events';

/** How many of a trail's events `GET /trails/{org}/{flow}/{trail}` shows (the rest: `…/events`, paged). */
export const SHOWN_TRAIL_EVENTS = 200;
import { trailId } from './trails.projection';

/**
 * A trail's timeline, a range of entries at a time: now from its own
 * documents (read by id, so a page costs its size whatever the trail's
 * length), at a past instant from the trail's stream read from the page's
 * first revision (entries are a pure function of their event).
 */
@Injectable()
export class TrailTimelineQuery {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /** Entries `range.from` to `range.until` (exclusive) of a trail that exists, oldest first. */
  async entries(
    org: string,
    flow: string,
    trail: string,
    range: TimelinePage,
    at?: number,
  ): Promise<TimelineEntry[]> {
    const count = range.until - range.from;
    if (count <= 0) return [];
    if (at !== undefined) {
      const events = await this.events.readStream(trailStream(org, flow, trail), {
        fromRevision: range.from,
        maxCount: count,
        untilRecordedAt: secondsToMicros(at),
      });
      return events.map((e) =>
        timelineEntry({ type: e.type, data: e.data } as TrailEvent, e.revision, e.recordedAt),
      );
    }
    const id = trailId(org, flow, trail);
    const ids = Array.from({ length: count }, (_, i) => timelineEntryId(id, range.from + i));
    const docs = await this.reads.collection(TRAIL_EVENTS).find({ _id: { $in: ids } }, { sort: { seq: 1 } });
    return docs.map((d) => {
      const { seq, type, timestamp, summary } = withoutInternals(d) as unknown as TimelineEntry;
      return { seq, type, timestamp, summary };
    });
  }

  /**
   * The trail's first events in Kosli's names (`kosli get trail` shows them),
   * at most `SHOWN_TRAIL_EVENTS`, from the trail's own stream (by then, at a
   * past instant). The whole timeline is paged by `entries`.
   */
  async kosliEvents(org: string, flow: string, trail: string, at?: number): Promise<KosliTrailEvent[]> {
    const events = await this.events.readStream(trailStream(org, flow, trail), {
      maxCount: SHOWN_TRAIL_EVENTS,
      ...(at !== undefined ? { untilRecordedAt: secondsToMicros(at) } : {}),
    });
    return kosliTrailEvents(
      events.map((e) => ({ event: { type: e.type, data: e.data } as TrailEvent, recordedAt: e.recordedAt })),
    );
  }
}
