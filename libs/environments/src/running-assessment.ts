import { tagsOf } from '#des/kernel';
import type { FlowTemplate } from '#des/flows';
import { FLOWS, flowId } from '#des/flows';
import { ArtifactFacts, judgeArtifact, NamedPolicy, POLICIES, policyId, readPolicy } from '#des/policies';
import type { Doc } from '#des/read-store';
import type { ArtifactData, AttestationView, RepoInfo, TrailView } from '#des/trails';
import { ARTIFACTS, commitOf, trailCompliance, trailId, TRAILS } from '#des/trails';
import type { Provenance, RunningArtifact } from './k8s-report';

/** The one read an assessment needs: a read store's collections or a projector's reads. */
export interface DocFinder {
  find(collection: string, filter: Record<string, unknown>): Promise<Doc[]>;
}

/**
 * Assesses what runs in an environment as the read models know it now: each
 * artifact's provenance (the trails that reported its fingerprint, with their
 * commit and repository), its compliance by those trails, and, when policies
 * are attached, the policies' decision, which then is its compliance. The K8S
 * report assesses a new running set with it; the compliance reaction
 * re-assesses the running set when a policy, a trail or a flow changes.
 */
export async function assessRunning(
  reads: DocFinder,
  org: string,
  policyNames: string[],
  running: RunningArtifact[],
): Promise<RunningArtifact[]> {
  const traced = await trace(reads, org, running);
  if (policyNames.length === 0 || running.length === 0) return traced.running;
  const policies = await attachedPolicies(reads, org, policyNames);
  return judgeRunning(policies, traced);
}

/** The running artifacts with their provenance, and the trails and flows it was read from. */
interface Traced {
  running: RunningArtifact[];
  trails: TrailView[];
  flows: Doc[];
}

async function trace(reads: DocFinder, org: string, running: RunningArtifact[]): Promise<Traced> {
  // Provenance and compliance are assessed afresh: what an earlier assessment said is dropped.
  const bare = running.map(({ provenance: _p, compliant: _c, policy_decision: _d, ...a }) => a);
  const none: Traced = { running: bare, trails: [], flows: [] };
  if (running.length === 0) return none;
  const artifacts = await reads.find(ARTIFACTS, {
    org,
    fingerprint: { $in: bare.map((a) => a.fingerprint) },
  });
  if (artifacts.length === 0) return none;
  const trailViews = (await reads.find(TRAILS, {
    _id: { $in: [...new Set(artifacts.map((a) => trailId(org, a.flow as string, a.trail as string)))] },
  })) as unknown as TrailView[];
  const trails = new Map(trailViews.map((t) => [`${t.flow}/${t.name}`, t]));
  const flows = await reads.find(FLOWS, {
    _id: { $in: [...new Set(artifacts.map((a) => flowId(org, a.flow as string)))] },
  });
  const compliant = (key: string) => {
    const trail = trails.get(key);
    if (!trail) return false;
    const template = (flows.find((f) => f.name === trail.flow)?.template as FlowTemplate | null) ?? null;
    return trailCompliance(trail, template).status === 'COMPLIANT';
  };
  const traced = bare.map((a): RunningArtifact => {
    const provenance: Provenance[] = artifacts
      .filter((x) => x.fingerprint === a.fingerprint)
      .map((x) => {
        const trail = trails.get(`${x.flow as string}/${x.trail as string}`) ?? null;
        return {
          flow: x.flow as string,
          trail: x.trail as string,
          commit: commitOf(x as unknown as ArtifactData, trail),
          repo: (x.repo_info as RepoInfo | null) ?? trail?.repo_info ?? null,
        };
      })
      .sort((x, y) => `${x.flow}/${x.trail}`.localeCompare(`${y.flow}/${y.trail}`));
    if (provenance.length === 0) return a;
    return { ...a, provenance, compliant: provenance.every((p) => compliant(`${p.flow}/${p.trail}`)) };
  });
  return { running: traced, trails: trailViews, flows };
}

/** Policies read, by policy id and version: a version never changes, so neither does what it reads as. */
const readPolicies = new Map<string, NamedPolicy['policy'] | null>();
const READ_POLICIES_KEPT = 500;

function policyVersion(id: string, version: number, text: string): NamedPolicy['policy'] | null {
  const key = `${id}#${version}`;
  let policy = readPolicies.get(key);
  if (policy === undefined) {
    const read = readPolicy(text);
    policy = 'policy' in read ? read.policy : null;
    if (readPolicies.size >= READ_POLICIES_KEPT) readPolicies.delete(readPolicies.keys().next().value!);
    readPolicies.set(key, policy);
  }
  return policy;
}

/** The latest version of each named policy, read (a policy that no longer reads judges nothing). */
async function attachedPolicies(reads: DocFinder, org: string, names: string[]): Promise<NamedPolicy[]> {
  const docs = await reads.find(POLICIES, { _id: { $in: names.map((n) => policyId(org, n)) } });
  return docs
    .flatMap((doc) => {
      const versions = doc.versions as { policy_yaml: string }[];
      const policy = policyVersion(doc._id, versions.length, versions[versions.length - 1].policy_yaml);
      return policy ? [{ name: doc.name as string, policy }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

const attestationFacts = (a: AttestationView) => ({
  name: a.name,
  type: a.type === 'custom' ? `custom:${String(a.evidence.type_name)}` : a.type,
  compliant: a.compliant,
});

/**
 * Judges each running artifact by the attached policies, with what its
 * trails say of it: its flow and the flow's tags, the trails' compliance,
 * the attestations on the trails and on the artifact.
 */
function judgeRunning(policies: NamedPolicy[], { running, trails, flows }: Traced): RunningArtifact[] {
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
