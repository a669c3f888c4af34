import type { Commit, RepoInfo } from '#des/trails';
import { environmentState } from './environment.decider';
import type { Provenance } from './k8s-report';

/**
 * The one compliance model every environment answer follows (the auditor's
 * guide, "The compliance model"):
 *
 * - An artifact is compliant by the environment's attached policies when
 *   some are, else by every trail that reported its fingerprint; with no such
 *   trail (no provenance) it is not compliant. An artifact on the
 *   environment's allow-list is compliant there whatever the rest says
 *   (`running-assessment.ts`).
 * - A snapshot records each artifact's compliance when it was made
 *   (`compliant_when_made`); a re-assessment (a policy, trail or flow
 *   changed) gives the snapshot in force a newer one (`compliant`).
 * - A snapshot is compliant iff every artifact in it is; one that runs
 *   nothing is. The environment's `state` at T is the `compliant` at T of
 *   the snapshot in force at T (true before the first).
 * - A deployment's `compliance` is its artifact's `compliant_when_made` in
 *   the snapshot it started in: a deployment is a fact of that instant.
 */
export const allCompliant = environmentState;

/** Where an artifact came from: its first trail (by flow, then trail) and every trail that reported it. */
export interface ArtifactProvenance {
  flow: string;
  trail: string;
  commit: Commit | null;
  repo: RepoInfo | null;
  trails: { flow: string; trail: string; commit: Commit | null; repo: RepoInfo | null }[];
}

/** A re-assessment of one artifact, as the snapshot keeps it. */
export interface Reassessed {
  compliant: boolean;
  provenance: Provenance[] | null;
  policy_decision: { compliant: boolean; reasons: string[] } | null;
}

export interface SnapshotArtifactView {
  fingerprint: string;
  artifact_name: string;
  instances: number;
  pods: { pod: string; namespace: string; created_at: number }[];
  since_snapshot: number;
  /** At the read's instant. */
  compliant: boolean;
  compliant_when_made: boolean;
  provenance: ArtifactProvenance | null;
  /** The attached policies' verdict and its reasons; null when none was attached. */
  policy_decision: { compliant: boolean; reasons: string[] } | null;
}

export interface SnapshotView {
  environment: string;
  index: number;
  timestamp: number;
  pods: number;
  /** At the read's instant: every artifact is compliant. */
  compliant: boolean;
  compliant_when_made: boolean;
  /** When the running set was last re-assessed (null: never since the snapshot was made). */
  reassessed_at: number | null;
  artifacts: SnapshotArtifactView[];
}

interface StoredArtifact {
  fingerprint: string;
  artifact_name: string;
  instances: number;
  pods: SnapshotArtifactView['pods'];
  since_snapshot: number;
  compliant?: boolean | null;
  provenance?: Provenance[];
  policy_decision?: { compliant: boolean; reasons: string[] };
}

export function artifactProvenance(provenance: Provenance[] | null | undefined): ArtifactProvenance | null {
  if (!provenance?.length) return null;
  const trails = provenance.map((p) => ({
    flow: p.flow,
    trail: p.trail,
    commit: p.commit ?? null,
    repo: p.repo ?? null,
  }));
  return { ...trails[0], trails };
}

/** A snapshot as the snapshot's document holds it, in the compliance model's terms. */
export function snapshotView(doc: Record<string, unknown>): SnapshotView {
  const reassessed = (doc.reassessed ?? {}) as Record<string, Reassessed>;
  const artifacts = ((doc.artifacts ?? []) as StoredArtifact[]).map((a): SnapshotArtifactView => {
    const now = reassessed[a.fingerprint];
    return {
      fingerprint: a.fingerprint,
      artifact_name: a.artifact_name,
      instances: a.instances,
      pods: a.pods,
      since_snapshot: a.since_snapshot,
      compliant: now ? now.compliant : a.compliant === true,
      compliant_when_made: a.compliant === true,
      provenance: artifactProvenance(now ? now.provenance : a.provenance),
      policy_decision: (now ? now.policy_decision : a.policy_decision) ?? null,
    };
  });
  return {
    environment: doc.environment as string,
    index: doc.index as number,
    timestamp: doc.timestamp as number,
    pods: doc.pods as number,
    compliant: allCompliant(artifacts),
    compliant_when_made: allCompliant(artifacts.map((a) => ({ compliant: a.compliant_when_made }))),
    reassessed_at: (doc.reassessed_at as number | undefined) ?? null,
    artifacts,
  };
}
