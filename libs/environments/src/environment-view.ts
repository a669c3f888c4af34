import type { Request } from 'express';
import { tagsOf } from '#des/kernel';
import { workspaceUrl } from '#des/platform';
import type { Doc } from '#des/read-store';
import type { CommitView } from '#des/trails';
import type {
  DeploymentView,
  EnvironmentEventView,
  EnvironmentView,
  ReplacedArtifactView,
} from './environments.dto';

/** An environment as endpoint 11 answers it; `htmlUrl`: its page in the workspace. */
export function environmentView(doc: Doc, htmlUrl: string): EnvironmentView {
  return {
    org: doc.org as string,
    name: doc.name as string,
    type: doc.type as string,
    description: doc.description as string,
    last_modified_at: (doc.last_modified_at as number) ?? null,
    include_scaling: false,
    tags: tagsOf(doc.tags),
    last_reported_at: (doc.last_reported_at as number) ?? null,
    last_changed_at: (doc.last_changed_at as number) ?? null,
    state: (doc.state as boolean | undefined) ?? true,
    policies: (doc.policies as string[]) ?? [],
    included_environments: (doc.included_environments as string[]) ?? [],
    archived: doc.archived === true,
    html_url: htmlUrl,
  };
}

const strings = (value: unknown) => (value as string[] | undefined) ?? [];

/** A deployment document as the deployments list shows it. */
export function deploymentView(doc: Doc, snapshotLink: string): DeploymentView {
  return {
    env_name: doc.env_name as string,
    fingerprint: doc.fingerprint as string,
    artifact_name: doc.artifact_name as string,
    deployed_at: doc.deployed_at as number,
    snapshot_index: doc.snapshot_index as number,
    compliance: doc.compliance as boolean,
    commit: (doc.commit as CommitView | null | undefined) ?? null,
    flow_names: strings(doc.flow_names),
    trail_names: strings(doc.trail_names),
    repo_names: strings(doc.repo_names),
    replaced_artifact: (doc.replaced_artifact as ReplacedArtifactView | null | undefined) ?? null,
    diff_url: (doc.diff_url as string | null | undefined) ?? null,
    _links: { snapshot: snapshotLink },
  };
}

/** An audit-log row as `GET …/events` shows it, with the names the Kosli CLI reads too (added, never renamed). */
export function eventView(row: Doc): EnvironmentEventView {
  const flowNames = strings(row.flow_names);
  return {
    environment: row.environment as string,
    timestamp: row.timestamp as number,
    event_type: row.event_type as EnvironmentEventView['event_type'],
    snapshot_index: row.snapshot_index as number,
    artifact_name: row.artifact_name as string,
    fingerprint: row.fingerprint as string,
    instances: row.instances as number,
    flow_names: flowNames,
    trail_names: strings(row.trail_names),
    repo_names: strings(row.repo_names),
    commit: (row.commit as string | null | undefined) ?? null,
    compliant: row.compliant as boolean,
    description: row.description as string,
    sha256: row.fingerprint as string,
    reported_at: row.timestamp as number,
    pipeline: flowNames.join(', '),
  };
}

/** The environment's page in the workspace, at an instant when one is given. */
export function envUrl(req: Request, org: string, env: string, at?: number): string {
  return workspaceUrl(req, [org, 'environments', env], at);
}
