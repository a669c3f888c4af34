import type { StoredEvent } from '#des/event-store';
import { aggregateEvent, type DocWrite, type Projection } from '#des/projections';
import type { PolicyEvent } from './policy.decider';
import { controlsNamed } from './policy-document';

export const POLICIES = 'policies';
export const policyId = (org: string, name: string) => `${org}/${name}`;

/** Policies as endpoint 8 answers them: every version, and the policy's events. */
export const policiesProjection: Projection = {
  name: 'policies',
  // The environments' attachments make a policy's `consuming_envs`.
  sources: (org) => ({ prefixes: [`policy-${org}/`, `environment-${org}/`] }),
  collections: [{ name: POLICIES, indexes: [{ name: 'by_org', keys: { org: 1, name: 1 } }] }],
  project(stored) {
    if (stored.type === 'policies_attached' || stored.type === 'policies_detached') return consumers(stored);
    const read = aggregateEvent<PolicyEvent>(stored, 'policy');
    if (!read) return [];
    const { org, at, event } = read;
    const id = policyId(org, read.id);
    const user = (stored.metadata.actor as { name?: string } | undefined)?.name ?? '';
    const entry = (data: Record<string, unknown>) => ({ type: event.type, timestamp: at, user, data });
    switch (event.type) {
      case 'policy_created': {
        const { name, description, type, version, comment, policy_yaml, created_by } = event.data;
        return [
          {
            collection: POLICIES,
            id,
            update: {
              $set: {
                org,
                name,
                description,
                type,
                archived: false,
                created_at: at,
                last_modified_at: at,
                created_by,
                events: [entry({ version })],
                versions: [{ version, comment, created_by, timestamp: at, policy_yaml }],
                latest_version: version,
                controls: controlsNamed(policy_yaml),
                consuming_envs: [],
              },
            },
          },
        ];
      }
      case 'policy_version_added': {
        const { description, version, comment, policy_yaml, created_by } = event.data;
        return [
          {
            collection: POLICIES,
            id,
            update: {
              $set: {
                description,
                last_modified_at: at,
                latest_version: version,
                controls: controlsNamed(policy_yaml),
              },
              $push: {
                events: entry({ version }),
                versions: { version, comment, created_by, timestamp: at, policy_yaml },
              },
            },
          },
        ];
      }
      case 'policy_updated':
        return [
          {
            collection: POLICIES,
            id,
            update: {
              $set: { description: event.data.description, last_modified_at: at },
              $push: { events: entry({ description: event.data.description }) },
            },
          },
        ];
      default:
        return [];
    }
  },
};

/** An environment's attach or detach: its name joins or leaves each policy's `consuming_envs`. */
function consumers(stored: StoredEvent): DocWrite[] {
  const read = aggregateEvent<{ type: string; data: { policy_names: string[] } }>(stored, 'environment');
  if (!read) return [];
  const { org, id: env, event } = read;
  const operator = event.type === 'policies_attached' ? '$addToSet' : '$pull';
  return event.data.policy_names.map((name) => ({
    collection: POLICIES,
    id: policyId(org, name),
    update: { [operator]: { consuming_envs: env } },
  }));
}
