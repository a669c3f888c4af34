import type { DomainEvent } from '#des/kernel';
import type { Commit } from './commit';

export const trailStream = (org: string, flow: string, trail: string) => `trail-${org}/${flow}/${trail}`;

export type GitCommitInfo = {
  sha1: string;
  message?: string;
  author?: string;
  branch?: string;
  timestamp?: number;
  url?: string;
};
export type RepoInfo = { name: string; url?: string; provider?: string };

export type TrailData = {
  flow: string;
  name: string;
  description: string;
  git_commit_info: GitCommitInfo | null;
  repo_info: RepoInfo | null;
  origin_url: string | null;
  user_data: Record<string, unknown>;
  external_urls?: Record<string, unknown>;
};

export type ArtifactData = {
  fingerprint: string;
  filename: string;
  git_commit: string | null;
  git_commit_info: GitCommitInfo | null;
  build_url: string | null;
  commit_url: string | null;
  repo_info: RepoInfo | null;
  template_reference_name: string | null;
  /** Sent by the Kosli CLI; absent on artifacts recorded before they were kept. */
  repo_url?: string | null;
  external_urls?: Record<string, unknown>;
  annotations?: Record<string, string>;
  user_data?: Record<string, unknown>;
  /** The commits since the flow's previous artifact, as `kosli report artifact` lists them. */
  commits_list?: (GitCommitInfo & { parents?: string[] })[];
};

/** A file sent with an attestation: kept content-addressed (SHA-256), named here. */
export type AttachmentRef = { filename: string; sha256: string; size: number };

/** What the Kosli CLI sends about where an attestation was made; each only when sent. */
export type AttestationContext = {
  git_commit_info?: GitCommitInfo;
  repo_info?: RepoInfo;
  external_urls?: Record<string, unknown>;
  annotations?: Record<string, string>;
  attachments?: AttachmentRef[];
};

export const ATTESTATION_TYPES = [
  'generic',
  'junit',
  'snyk',
  'pull_request',
  'jira',
  'custom',
  // A SonarQube analysis with its quality gate (the Kosli CLI's `attest sonar`).
  'sonar',
  // A compliance decision about a control (the Kosli CLI's `attest decision`).
  'system',
  // A manual override of the compliance of the attestation of the same name.
  'override',
] as const;
export type AttestationType = (typeof ATTESTATION_TYPES)[number];

export type AttestationData = {
  id: string;
  name: string;
  type: AttestationType;
  compliant: boolean;
  artifact_fingerprint: string | null;
  description: string;
  origin_url: string | null;
  user_data: Record<string, unknown>;
  /** The type's own evidence (junit results, snyk results, pull requests, jira issues). */
  evidence: Record<string, unknown>;
} & AttestationContext;

/** What an `override` attestation carries in its evidence. */
export type OverrideEvidence = {
  reason: string;
  new_compliance_status: boolean;
  original_attestation_type: string;
};

/** Where a trail's artifact runs: appended by the provenance reaction from environment snapshots. */
export type RunningData = {
  fingerprint: string;
  environment: string;
  snapshot_index: number;
  artifact_name: string;
  flow: string;
  trail: string;
  commit: Commit | null;
  repo: RepoInfo | null;
};

export type TrailEvent =
  | DomainEvent<'artifact_started_running', RunningData>
  | DomainEvent<'artifact_stopped_running', RunningData>
  | DomainEvent<'trail_reported', TrailData>
  | DomainEvent<'trail_updated', TrailData>
  | DomainEvent<'artifact_reported', ArtifactData>
  | DomainEvent<'attestation_reported', AttestationData>;
