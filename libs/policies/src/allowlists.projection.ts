import { aggregateEvent, type Projection } from '#des/projections';
import type { AllowlistEvent } from './allowlist.decider';

export const ALLOWLISTS = 'allowlists';
export const allowlistEntryId = (org: string, environment: string, fingerprint: string) =>
  `${org}/${environment}/${fingerprint}`;

/** One document per artifact allowed in an environment. */
export const allowlistsProjection: Projection = {
  name: 'allowlists',
  sources: (org, environment) =>
    environment ? { streams: [`allowlist-${org}/${environment}`] } : { prefixes: [`allowlist-${org}/`] },
  collections: [
    { name: ALLOWLISTS, indexes: [{ name: 'by_environment', keys: { org: 1, environment: 1 } }] },
  ],
  project(stored) {
    const read = aggregateEvent<AllowlistEvent>(stored, 'allowlist');
    if (!read) return [];
    const { org, at, event } = read;
    const { environment, fingerprint, artifact_name, description } = event.data;
    const id = allowlistEntryId(org, environment, fingerprint);
    return [
      {
        collection: ALLOWLISTS,
        id,
        update: {
          $set: { org, environment, fingerprint, artifact_name, description, allowed_at: at },
          $setOnInsert: { created_at: at },
        },
      },
    ];
  },
};
