import { microsToSeconds } from '#des/event-store';
import type { Projection } from '#des/projections';
import {
  attestationTypeStream,
  type AttestationTypeEvent,
  type AttestationTypeVersion,
} from './attestation-type.decider';

export const ATTESTATION_TYPES_COLLECTION = 'custom_attestation_types';
export const attestationTypeId = (org: string, name: string) => `${org}/${name}`;

/** A version in the shape the Kosli CLI reads (`summary` null when the version has none). */
const versionView = (v: AttestationTypeVersion, version: number, at: number, actor: string | null) => ({
  version,
  timestamp: at,
  created_by: actor,
  type_schema: v.schema,
  evaluator: { content_type: 'jq', rules: v.jq_rules },
  summary: v.summary?.length ? v.summary : null,
});

/** The type's fields that follow its latest version. */
const latest = (v: AttestationTypeVersion) => ({
  name: v.name,
  description: v.description,
  schema: v.schema,
  jq_rules: v.jq_rules,
  summary: v.summary ?? [],
});

export const attestationTypesProjection: Projection = {
  name: 'custom_attestation_types',
  sources: (org, name) =>
    name ? { streams: [attestationTypeStream(org, name)] } : { prefixes: [`attestation_type-${org}/`] },
  collections: [
    { name: ATTESTATION_TYPES_COLLECTION, indexes: [{ name: 'by_org', keys: { org: 1, name: 1 } }] },
  ],
  async project(stored, reads) {
    const org = stored.metadata.org as string;
    const at = microsToSeconds(stored.recordedAt);
    const event = { type: stored.type, data: stored.data } as AttestationTypeEvent;
    const actor = (stored.metadata.actor as { name?: string } | undefined)?.name ?? null;
    const id = attestationTypeId(org, event.data.name);
    switch (event.type) {
      case 'attestation_type_created':
        return [
          {
            collection: ATTESTATION_TYPES_COLLECTION,
            id,
            update: {
              $set: {
                org,
                ...latest(event.data),
                archived: false,
                created_at: at,
                created_by: actor,
                last_modified_at: at,
                versions: [versionView(event.data, 1, at, actor)],
              },
            },
          },
        ];
      case 'attestation_type_versioned': {
        const current = await reads.get(ATTESTATION_TYPES_COLLECTION, id);
        const versions = ((current?.versions as unknown[] | undefined) ?? []).slice(
          0,
          event.data.version - 1,
        );
        return [
          {
            collection: ATTESTATION_TYPES_COLLECTION,
            id,
            update: {
              $set: {
                ...latest(event.data),
                archived: false,
                last_modified_at: at,
                versions: [...versions, versionView(event.data, event.data.version, at, actor)],
              },
              $unset: { archived_at: '' },
            },
          },
        ];
      }
      case 'attestation_type_archived':
        return [
          {
            collection: ATTESTATION_TYPES_COLLECTION,
            id,
            update: { $set: { archived: true, archived_at: at, last_modified_at: at } },
          },
        ];
      default:
        return [];
    }
  },
};
