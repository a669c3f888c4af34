import type { DocWrite, Projection } from '#des/projections';
import { withoutInternals } from '#des/projections';
import type { TrailEvent } from './trail.events';
import { evolveTrailView, TrailView } from './trail.view';
import { timelineEntry, timelineEntryId, TRAIL_EVENTS } from './trail-timeline';

export const TRAILS = 'trails';
const TRAIL_VIEW_EVENTS: string[] = [
  'trail_reported',
  'trail_updated',
  'artifact_reported',
  'attestation_reported',
  'artifact_started_running',
  'artifact_stopped_running',
];
export const ARTIFACTS = 'artifacts';

export const trailId = (org: string, flow: string, trail: string) => `${org}/${flow}/${trail}`;
export const artifactId = (org: string, flow: string, fingerprint: string) => `${org}/${flow}/${fingerprint}`;

/** `trail-<org>/<flow>/<trail>` → its parts. */
export function trailOf(stream: string): { org: string; flow: string; trail: string } {
  const [org, flow, trail] = stream.slice('trail-'.length).split('/');
  return { org, flow, trail };
}

/**
 * Trails as `GET /trails/...` shows them (the same fold time travel uses),
 * their timelines (one document per entry, paged on read), and artifacts by
 * fingerprint (repositories are the repos feature's).
 */
export const trailsProjection: Projection = {
  name: 'trails',
  // `within` a flow: its trails.
  sources: (org, flow) => ({ prefixes: [flow ? `trail-${org}/${flow}/` : `trail-${org}/`] }),
  collections: [
    { name: TRAILS, indexes: [{ name: 'by_flow', keys: { org: 1, flow: 1, created_at: -1 } }] },
    // Pages are read by _id (trail and seq); this one serves a trail's whole timeline in order.
    { name: TRAIL_EVENTS, indexes: [{ name: 'by_trail', keys: { org: 1, flow: 1, trail: 1, seq: 1 } }] },
    {
      name: ARTIFACTS,
      indexes: [
        { name: 'by_fingerprint', keys: { org: 1, fingerprint: 1 } },
        { name: 'by_flow', keys: { org: 1, flow: 1 } },
      ],
    },
  ],
  async project(stored, reads) {
    if (!stored.stream.startsWith('trail-')) return [];
    const { org, flow, trail } = trailOf(stored.stream);
    const event = { type: stored.type, data: stored.data } as TrailEvent;
    if (!TRAIL_VIEW_EVENTS.includes(event.type)) return [];
    const id = trailId(org, flow, trail);
    const current = (await reads.get(TRAILS, id)) as (TrailView & { _id?: string; _pos?: number }) | null;
    const previous = current ? withoutInternals(current) : null;
    const next = evolveTrailView(previous as TrailView | null, org, event, stored.recordedAt);
    if (!next) return [];
    const writes: DocWrite[] = [
      { collection: TRAILS, id, update: { $set: { ...next } } },
      {
        collection: TRAIL_EVENTS,
        id: timelineEntryId(id, stored.revision),
        update: { $set: { org, flow, trail, ...timelineEntry(event, stored.revision, stored.recordedAt) } },
        once: true,
      },
    ];
    if (event.type === 'artifact_reported') {
      writes.push({
        collection: ARTIFACTS,
        id: artifactId(org, flow, event.data.fingerprint),
        update: { $set: { org, flow, trail, ...event.data, reported_at: next.last_modified_at } },
      });
    }
    return writes;
  },
};
