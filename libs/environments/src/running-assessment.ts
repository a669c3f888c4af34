import { tagsOf } from '#des/platform';
import { ArtifactFacts, judgeArtifact, NamedPolicy, POLICIES, policyId, readPolicy } from '#des/policies';
import type { Doc, ReadStore } from '#des/read-store';
import type { AttestationView, TrailView } from '#des/trails';
import type { RunningArtifact } from './k8s-report';

/** The running artifacts with their provenance, and the trails and flows it was read from. */
export interface Traced {
  running: RunningArtifact[];
  trails: TrailView[];
  flows: Doc[];
}

/** The latest version of each named policy, read (a policy that no longer reads judges nothing). */
async function attachedPolicies(reads: ReadStore, org: string, names: string[]): Promise<NamedPolicy[]> {
  const docs = await reads.collection(POLICIES).find({ _id: { $in: names.map((n) => policyId(org, n)) } });
  return docs
    .flatMap((doc) => {
      const versions = doc.versions as { policy_yaml: string }[];
      const read = readPolicy(versions[versions.length - 1].policy_yaml);
      return 'policy' in read ? [{ name: doc.name as string, policy: read.policy }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

const attestationFacts = (a: AttestationView) => ({
  name: a.name,
  type: a.type === 'custom' ? `custom:${String(a.evidence.type_name)}` : a.type,
  compliant: a.compliant,
});

/**
 * Judges each running artifact by the environment's attached policies, with
 * what its trails say of it: its flow and the flow's tags, the trails'
 * compliance, the attestations on the trails and on the artifact (the trails
 * and flows its provenance was read from). With no policy attached the
 * artifacts stay as they are (compliant by their trails).
 */
export async function judgeRunning(
  reads: ReadStore,
  org: string,
  policyNames: string[],
  { running, trails, flows }: Traced,
): Promise<RunningArtifact[]> {
  if (policyNames.length === 0 || running.length === 0) return running;
  const policies = await attachedPolicies(reads, org, policyNames);
  return running.map((artifact) => {
    const provenance = artifact.provenance ?? [];
    const flow = provenance.length ? flows.find((f) => f.name === provenance[0].flow) : undefined;
    const attestations = provenance.flatMap((p) => {
      const trail = trails.find((t) => t.flow === p.flow && t.name === p.trail);
      const built = trail?.artifacts.find((a) => a.fingerprint === artifact.fingerprint);
      return [...Object.values(trail?.attestations ?? {}), ...Object.values(built?.attestations ?? {})].map(
        attestationFacts,
      );
    });
    const facts: ArtifactFacts = {
      name: artifact.artifact_name,
      fingerprint: artifact.fingerprint,
      flow: flow ? { name: flow.name as string, tags: tagsOf(flow.tags) } : null,
      trailCompliant: provenance.length ? (artifact.compliant ?? false) : null,
      attestations,
    };
    const decision = judgeArtifact(policies, facts);
    return { ...artifact, compliant: decision.compliant, policy_decision: decision };
  });
}
