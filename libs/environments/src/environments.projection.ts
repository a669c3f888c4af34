import { storedTags } from '#des/kernel';
import { aggregateEvent, type DocWrite, type Projection } from '#des/projections';
import {
  environmentState,
  environmentStream,
  type EnvironmentEvent,
  type SnapshotEntry,
} from './environment.decider';
import { imageName } from './k8s-report';
import type { Reassessed } from './compliance-model';
import type { Commit } from '#des/trails';

export const ENVIRONMENTS = 'environments';
export const SNAPSHOTS = 'snapshots';
export const DEPLOYMENTS = 'deployments';
export const ENVIRONMENT_EVENTS = 'environment_events';

export const environmentId = (org: string, name: string) => `${org}/${name}`;
export const snapshotId = (org: string, env: string, index: number) => `${org}/${env}/${index}`;

const unique = (values: string[]) => [...new Set(values)].sort();

/**
 * Row order of the audit log (`seq`, sorted ascending): the event's log position,
 * then the entry's place in it, as a fixed-width string. A number
 * (position × 100000 + i) would pass 2^53 once KurrentDB byte positions grow
 * past ~90 GB; 16 digits hold any safe-integer position, and strings of one
 * width sort like the pairs they encode.
 */
export const sequence = (position: number, i: number) =>
  `${String(position).padStart(16, '0')}:${String(i).padStart(6, '0')}`;

/**
 * Environments (the spec's fields), their snapshots, deployments (each
 * `started` entry) and audit-log rows (each started/exited/changed entry).
 */
export const environmentsProjection: Projection = {
  name: 'environments',
  sources: (org, env) =>
    env ? { streams: [environmentStream(org, env)] } : { prefixes: [`environment-${org}/`] },
  collections: [
    {
      name: ENVIRONMENTS,
      indexes: [
        { name: 'by_org', keys: { org: 1, name: 1 } },
        // Which environments run a fingerprint: the compliance reaction's question.
        { name: 'by_running', keys: { org: 1, running_fingerprints: 1 } },
      ],
    },
    // Snapshots, deployments and audit-log rows are written once each (`once`): inserted, never updated.
    { name: SNAPSHOTS, indexes: [{ name: 'by_env', keys: { org: 1, environment: 1, index: -1 } }] },
    { name: DEPLOYMENTS, indexes: [{ name: 'by_env_time', keys: { org: 1, env_name: 1, deployed_at: -1 } }] },
    { name: ENVIRONMENT_EVENTS, indexes: [{ name: 'by_env_seq', keys: { org: 1, environment: 1, seq: 1 } }] },
  ],
  project(stored) {
    const read = aggregateEvent<EnvironmentEvent>(stored, 'environment');
    if (!read) return [];
    const { org, at, event } = read;
    switch (event.type) {
      case 'environment_created':
        return [
          {
            collection: ENVIRONMENTS,
            id: environmentId(org, event.data.name),
            update: {
              $set: {
                org,
                name: event.data.name,
                type: event.data.type,
                description: event.data.description,
                included_environments: event.data.included_environments,
                last_modified_at: at,
                include_scaling: false,
                tags: [],
                last_reported_at: null,
                last_changed_at: null,
                state: true,
                policies: [],
                latest_snapshot: (event.data.first_snapshot ?? 1) - 1,
                first_snapshot: event.data.first_snapshot ?? 1,
                running_fingerprints: [],
                archived: false,
                renamed_to: null,
                renamed_from: null,
              },
            },
          },
        ];
      case 'environment_archived':
      case 'environment_unarchived':
        return [
          {
            collection: ENVIRONMENTS,
            id: environmentId(org, event.data.name),
            update: { $set: { archived: event.type === 'environment_archived', last_modified_at: at } },
          },
        ];
      case 'environment_renamed':
        return [
          {
            collection: ENVIRONMENTS,
            id: environmentId(org, event.data.name),
            update: {
              $set: { renamed_to: event.data.new_name, running_fingerprints: [], last_modified_at: at },
            },
          },
        ];
      case 'environment_renamed_from': {
        const d = event.data;
        return [
          {
            collection: ENVIRONMENTS,
            id: environmentId(org, d.name),
            update: {
              $set: {
                org,
                name: d.name,
                type: d.type,
                description: d.description,
                included_environments: d.included_environments,
                last_modified_at: at,
                include_scaling: false,
                tags: storedTags(d.tags),
                last_reported_at: null,
                last_changed_at: null,
                state: environmentState(d.running),
                policies: d.policies,
                latest_snapshot: d.last_index,
                first_snapshot: d.last_index + 1,
                running_fingerprints: d.running.map((a) => a.fingerprint),
                archived: false,
                renamed_to: null,
                renamed_from: d.previous_name,
              },
            },
          },
        ];
      }
      case 'environment_updated':
        return [
          {
            collection: ENVIRONMENTS,
            id: environmentId(org, read.id),
            update: {
              $set: {
                type: event.data.type,
                description: event.data.description,
                included_environments: event.data.included_environments,
                last_modified_at: at,
              },
            },
          },
        ];
      case 'policies_attached':
      case 'policies_detached':
        return [
          {
            collection: ENVIRONMENTS,
            id: environmentId(org, read.id),
            update: { $set: { policies: event.data.policies } },
          },
        ];
      case 'tags_changed':
        return [
          {
            collection: ENVIRONMENTS,
            id: environmentId(org, read.id),
            update: { $set: { tags: storedTags(event.data.tags) } },
          },
        ];
      case 'report_received':
        return [
          {
            collection: ENVIRONMENTS,
            id: environmentId(org, event.data.name),
            update: { $set: { last_reported_at: at } },
          },
        ];
      case 'snapshot_created': {
        const { name: env, index, artifacts, entries, pods } = event.data;
        const state = environmentState(artifacts);
        const writes: DocWrite[] = [
          {
            collection: ENVIRONMENTS,
            id: environmentId(org, env),
            update: {
              $set: {
                last_reported_at: at,
                last_changed_at: at,
                latest_snapshot: index,
                state,
                running_fingerprints: artifacts.map((a) => a.fingerprint),
              },
            },
          },
          {
            collection: SNAPSHOTS,
            id: snapshotId(org, env, index),
            update: {
              $set: {
                org,
                environment: env,
                index,
                timestamp: at,
                pods,
                compliant: state,
                compliant_when_made: state,
                artifacts,
                // The report's event in the log: what an evidence bundle proves the change by.
                position: stored.position,
              },
            },
            once: true,
          },
        ];
        const exited = exitedByImage(entries);
        entries.forEach((entry, i) => {
          writes.push(auditRow(org, env, index, at, entry, sequence(stored.position, i)));
          if (entry.event_type === 'started') writes.push(deployment(org, env, index, at, entry, exited));
        });
        return writes;
      }
      case 'compliance_changed': {
        const { name: env, snapshot_index: index, entries, state, previous_state, cause } = event.data;
        const flipped =
          state === previous_state ? '' : `; environment now ${state ? 'compliant' : 'non-compliant'}`;
        return [
          { collection: ENVIRONMENTS, id: environmentId(org, env), update: { $set: { state } } },
          {
            // The snapshot in force keeps what it recorded, and gains its compliance now (compliance-model.ts).
            collection: SNAPSHOTS,
            id: snapshotId(org, env, index),
            update: {
              $set: {
                compliant: state,
                reassessed_at: at,
                ...Object.fromEntries(entries.map((e) => [`reassessed.${e.fingerprint}`, reassessment(e)])),
              },
            },
          },
          ...entries.map((entry, i) => {
            const seq = sequence(stored.position, i);
            const now = entry.compliant ? 'compliant' : 'non-compliant';
            const reasons = entry.policy_decision?.reasons.length
              ? `: ${entry.policy_decision.reasons.join('; ')}`
              : '';
            const description = `${entry.artifact_name} re-assessed as ${now} after ${cause.event_type} (${cause.subject})${reasons}${flipped}`;
            return auditRow(org, env, index, at, entry, seq, {
              id: `${snapshotId(org, env, index)}/changed/${entry.fingerprint}/${seq}`,
              description,
            });
          }),
        ];
      }
      default:
        return [];
    }
  },
};

const reassessment = (entry: SnapshotEntry): Reassessed => ({
  compliant: entry.compliant === true,
  provenance: entry.provenance?.length ? entry.provenance : null,
  policy_decision: entry.policy_decision ?? null,
});

/** The exited entries by image name (the first of each): what a started one of the same name replaced. */
function exitedByImage(entries: SnapshotEntry[]): Map<string, SnapshotEntry> {
  const byImage = new Map<string, SnapshotEntry>();
  for (const e of entries) {
    if (e.event_type !== 'exited') continue;
    const image = imageName(e.artifact_name);
    if (!byImage.has(image)) byImage.set(image, e);
  }
  return byImage;
}

/** A started entry as a deployment: commit, repositories and compliance as known when it started. */
function deployment(
  org: string,
  env: string,
  index: number,
  at: number,
  entry: SnapshotEntry,
  exited: Map<string, SnapshotEntry>,
): DocWrite {
  const replaced = exited.get(imageName(entry.artifact_name));
  const commit = commitOfEntry(entry);
  const replacedCommit = replaced ? commitOfEntry(replaced) : null;
  const repoUrl = entry.provenance?.find((p) => p.repo?.url)?.repo?.url ?? '';
  return {
    collection: DEPLOYMENTS,
    id: `${snapshotId(org, env, index)}/${entry.fingerprint}`,
    update: {
      $set: {
        org,
        env_name: env,
        fingerprint: entry.fingerprint,
        artifact_name: entry.artifact_name,
        deployed_at: at,
        snapshot_index: index,
        instances: entry.instances,
        compliance: entry.compliant === true,
        commit,
        ...names(entry),
        replaced_artifact: replaced
          ? {
              fingerprint: replaced.fingerprint,
              artifact_name: replaced.artifact_name,
              snapshot_index: replaced.since_snapshot,
              commit: replacedCommit,
            }
          : null,
        diff_url:
          replacedCommit && commit && /^https?:\/\//.test(repoUrl)
            ? `${repoUrl.replace(/\/$/, '')}/compare/${replacedCommit.sha1}...${commit.sha1}`
            : null,
      },
    },
    once: true,
  };
}

/** The commit of the first trail that reported the artifact (trails sorted by flow/trail). */
function commitOfEntry(entry: SnapshotEntry): Commit | null {
  return entry.provenance?.find((p) => p.commit)?.commit ?? null;
}

/** Flow, trail and repository names of an entry's provenance. */
function names(entry: SnapshotEntry) {
  const provenance = entry.provenance ?? [];
  return {
    flow_names: unique(provenance.map((p) => p.flow)),
    trail_names: unique(provenance.map((p) => p.trail)),
    repo_names: unique(provenance.flatMap((p) => (p.repo?.name ? [p.repo.name] : []))),
  };
}

function auditRow(
  org: string,
  env: string,
  index: number,
  at: number,
  entry: SnapshotEntry,
  seq: string,
  /** A re-assessment's row: its own id (several may change one snapshot's artifact) and description. */
  reassessed?: { id: string; description: string },
): DocWrite {
  const plural = entry.instances === 1 ? 'instance' : 'instances';
  return {
    collection: ENVIRONMENT_EVENTS,
    id: reassessed?.id ?? `${snapshotId(org, env, index)}/${entry.event_type}/${entry.fingerprint}`,
    update: {
      $set: {
        org,
        environment: env,
        seq,
        timestamp: at,
        event_type: entry.event_type,
        snapshot_index: index,
        artifact_name: entry.artifact_name,
        fingerprint: entry.fingerprint,
        instances: entry.instances,
        ...names(entry),
        commit: commitOfEntry(entry)?.sha1 ?? null,
        compliant: entry.compliant === true,
        description: reassessed
          ? reassessed.description
          : entry.event_type === 'changed'
            ? `${entry.artifact_name} changed provenance or compliance (${entry.instances} ${plural})`
            : `${entry.artifact_name} ${entry.event_type} (${entry.instances} ${plural})`,
      },
    },
    once: true,
  };
}
