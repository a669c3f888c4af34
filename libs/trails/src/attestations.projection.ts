import { microsToSeconds } from '#des/event-store';
import type { Projection } from '#des/projections';
import type { AttestationData, TrailEvent } from './trail.events';
import { trailOf } from './trails.projection';

/** Every attestation recorded, one document each (written once): read by id and by name. */
export const ATTESTATIONS = 'attestations';

export const attestationDocId = (org: string, id: string) => `${org}/${id}`;

/** An attestation as it was recorded, where (flow, trail) and when. */
export type AttestationRecord = AttestationData & {
  org: string;
  flow: string;
  trail: string;
  reported_at: number;
};

/**
 * Each attestation as recorded: `GET /attestations/{org}?attestation_id=` and
 * the attestations of a name on a trail or an artifact (every one, oldest
 * first; the trail's view keeps the latest of a name).
 */
export const attestationsProjection: Projection = {
  name: 'attestations',
  sources: (org, flow) => ({ prefixes: [flow ? `trail-${org}/${flow}/` : `trail-${org}/`] }),
  collections: [
    {
      name: ATTESTATIONS,
      indexes: [
        { name: 'by_trail', keys: { org: 1, flow: 1, trail: 1, name: 1, reported_at: 1 } },
        { name: 'by_artifact', keys: { org: 1, flow: 1, artifact_fingerprint: 1, name: 1, reported_at: 1 } },
      ],
    },
  ],
  project(stored) {
    if (!stored.stream.startsWith('trail-') || stored.type !== 'attestation_reported') return [];
    const { org, flow, trail } = trailOf(stored.stream);
    const event = { type: stored.type, data: stored.data } as Extract<
      TrailEvent,
      { type: 'attestation_reported' }
    >;
    const record: AttestationRecord = {
      ...event.data,
      org,
      flow,
      trail,
      reported_at: microsToSeconds(stored.recordedAt),
    };
    return [
      {
        collection: ATTESTATIONS,
        id: attestationDocId(org, event.data.id),
        update: { $set: record },
        once: true,
      },
    ];
  },
};
