import type { Doc, DocReads, ReadStore } from '#des/read-store';
import {
  ENVIRONMENT_EVENTS,
  ENVIRONMENTS,
  environmentId,
  SNAPSHOTS,
  snapshotId,
} from './environments.projection';

/** The environment named `name` as the read models hold it, or null (also for a name given up by a rename). */
export async function environmentNamed(reads: DocReads, org: string, name: string): Promise<Doc | null> {
  const doc = await reads.get(ENVIRONMENTS, environmentId(org, name));
  return doc && !doc.renamed_to ? doc : null;
}

/** The environments among `names` that exist, by name. */
export async function environmentsNamed(reads: DocReads, org: string, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const docs = await reads.find(ENVIRONMENTS, {
    _id: { $in: names.map((n) => environmentId(org, n)) },
    renamed_to: null,
  });
  return docs.map((e) => e.name as string);
}

/** The environments (by name) running any of `fingerprints` now. */
export async function environmentsRunning(
  reads: DocReads,
  org: string,
  fingerprints: string[],
): Promise<string[]> {
  if (fingerprints.length === 0) return [];
  const docs = await reads.find(ENVIRONMENTS, { org, running_fingerprints: { $in: fingerprints } });
  return docs.map((e) => e.name as string);
}

/** The environments (by name) the policy `policy` is attached to. */
export async function environmentsWithPolicy(
  reads: DocReads,
  org: string,
  policy: string,
): Promise<string[]> {
  return (await reads.find(ENVIRONMENTS, { org, policies: policy })).map((e) => e.name as string);
}

/** Snapshot `index` of the environment, or null. */
export function snapshotNamed(reads: DocReads, org: string, env: string, index: number): Promise<Doc | null> {
  return reads.get(SNAPSHOTS, snapshotId(org, env, index));
}

/** The snapshots `from`..`to` of the environment, a page of them, newest first unless `oldestFirst`. */
export function snapshotsBetween(
  store: ReadStore,
  org: string,
  env: string,
  range: { from: number; to: number; oldestFirst: boolean },
  page: { skip: number; limit: number },
): Promise<Doc[]> {
  return store
    .collection(SNAPSHOTS)
    .find(
      { org, environment: env, index: { $gte: range.from, $lte: range.to } },
      { sort: { index: range.oldestFirst ? 1 : -1 }, ...page },
    );
}

/** The snapshots of the environment with these indexes (those that exist). */
export function snapshotsNumbered(
  reads: DocReads,
  org: string,
  env: string,
  indexes: number[],
): Promise<Doc[]> {
  if (indexes.length === 0) return Promise.resolve([]);
  return reads.find(SNAPSHOTS, { _id: { $in: indexes.map((i) => snapshotId(org, env, i)) } });
}

/** An environment's kind and members, as the change population selects environments. */
export interface EnvironmentKind {
  name: string;
  type: string;
  included_environments: string[];
}

/** Every environment of the organization, by name. */
export async function environmentKinds(reads: DocReads, org: string): Promise<EnvironmentKind[]> {
  const docs = await reads.find(ENVIRONMENTS, { org, renamed_to: null });
  return docs
    .map((d) => ({
      name: d.name as string,
      type: d.type as string,
      included_environments: (d.included_environments as string[] | undefined) ?? [],
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** One row of an environment's audit log: an artifact started, exited or changed (compliance or provenance). */
export interface AuditRow {
  environment: string;
  timestamp: number;
  event_type: 'started' | 'exited' | 'changed';
  snapshot_index: number;
  artifact_name: string;
  fingerprint: string;
  compliant: boolean;
  /** The commit (sha1) of its first trail, when it had provenance. */
  commit: string | null;
  flow_names: string[];
  description: string;
}

/**
 * The audit log of an environment, rows recorded from `from` to `until`
 * (both included), in log order. Each row is written once, stamped with the
 * instant of the event that made it: those up to `until` are exactly what
 * was known at `until`.
 */
export async function* auditRowsBetween(
  store: ReadStore,
  org: string,
  env: string,
  range: { from: number; until: number },
): AsyncIterable<AuditRow> {
  const rows = store
    .collection(ENVIRONMENT_EVENTS)
    .stream(
      { org, environment: env, timestamp: { $gte: range.from, $lte: range.until } },
      { sort: { seq: 1 } },
    );
  for await (const row of rows) yield row as unknown as AuditRow;
}
