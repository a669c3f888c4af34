import { microsToSeconds } from '#des/event-store';
import type { Projection } from '#des/projections';
import { attestationTypeStream, type AttestationTypeEvent } from './attestation-type.decider';

export const ATTESTATION_TYPES_COLLECTION = 'custom_attestation_types';
export const attestationTypeId = (org: string, name: string) => `${org}/${name}`;

export const attestationTypesProjection: Projection = {
  name: 'custom_attestation_types',
  sources: (org, name) =>
    name ? { streams: [attestationTypeStream(org, name)] } : { prefixes: [`attestation_type-${org}/`] },
  collections: [
    { name: ATTESTATION_TYPES_COLLECTION, indexes: [{ name: 'by_org', keys: { org: 1, name: 1 } }] },
  ],
  project(stored) {
    const org = stored.metadata.org as string;
    const at = microsToSeconds(stored.recordedAt);
    const event = { type: stored.type, data: stored.data } as AttestationTypeEvent;
    const actor = (stored.metadata.actor as { name?: string } | undefined)?.name ?? null;
    switch (event.type) {
      case 'attestation_type_created':
        return [
          {
            collection: ATTESTATION_TYPES_COLLECTION,
            id: attestationTypeId(org, event.data.name),
            update: {
              $set: {
                org,
                name: event.data.name,
                description: event.data.description,
                schema: event.data.schema,
                jq_rules: event.data.jq_rules,
                archived: false,
                created_at: at,
                created_by: actor,
                last_modified_at: at,
                // Types are not versioned yet: one version, in the shape the Kosli CLI reads.
                versions: [
                  {
                    version: 1,
                    timestamp: at,
                    created_by: actor,
                    type_schema: event.data.schema,
                    evaluator: { content_type: 'jq', rules: event.data.jq_rules },
                  },
                ],
              },
            },
          },
        ];
      case 'attestation_type_archived':
        return [
          {
            collection: ATTESTATION_TYPES_COLLECTION,
            id: attestationTypeId(org, event.data.name),
            update: { $set: { archived: true, archived_at: at, last_modified_at: at } },
          },
        ];
      default:
        return [];
    }
  },
};
