import { tagsOf } from '#des/kernel';
import {
  allowlistOf,
  type ArtifactFacts,
  judgeArtifact,
  policyAttestationType,
  latestPolicies,
  type NamedPolicy,
} from '#des/policies';
import type { DocReads } from '#des/read-store';
import {
  type AttestationView,
  commitOf,
  provenanceOf,
  type ReportProvenance,
  type TrailView,
} from '#des/trails';
import { environmentNamed } from './environments.queries';
import type { Provenance, RunningArtifact } from './k8s-report';

/**
 * Assesses what runs in an environment as the read models know it now: each
 * artifact's provenance (the trails that reported its fingerprint, with their
 * commit and repository), its compliance by those trails, and, when policies
 * are attached, the policies' decision, which then is its compliance. The K8S
 * report assesses a new running set with it; the compliance reaction
 * re-assesses the running set when a policy, a trail or a flow changes.
 */
export async function assessRunning(
  reads: DocReads,
  org: string,
  policyNames: string[],
  running: RunningArtifact[],
  environment?: string,
): Promise<RunningArtifact[]> {
  const traced = await trace(reads, org, running);
  const assessed =
    policyNames.length === 0 || running.length === 0
      ? traced.running
      : judgeRunning(await latestPolicies(reads, org, policyNames), traced);
  return environment === undefined ? assessed : allowing(reads, org, environment, assessed);
}

/**
 * An artifact on the environment's allow-list (`PUT /allowlists/{org}/{env}`,
 * the Kosli CLI's `allow artifact`) is compliant there, whatever its
 * provenance or the policies say; its provenance and the policies' decision
 * are kept as they are, so the answer still shows what the evidence says.
 */
async function allowing(
  reads: DocReads,
  org: string,
  environment: string,
  running: RunningArtifact[],
): Promise<RunningArtifact[]> {
  if (running.length === 0) return running;
  const allowed = new Set((await allowlistOf(reads, org, environment)).map((a) => a.fingerprint));
  if (allowed.size === 0) return running;
  return running.map((a) => (allowed.has(a.fingerprint) ? { ...a, compliant: true } : a));
}

/** A new running set of environment `env`, assessed by the policies attached to it now. */
export async function assessReport(
  reads: DocReads,
  org: string,
  env: string,
  running: RunningArtifact[],
): Promise<RunningArtifact[]> {
  const environment = await environmentNamed(reads, org, env);
  return assessRunning(reads, org, (environment?.policies as string[] | undefined) ?? [], running, env);
}

/** The running artifacts with their provenance, and the reports it was read from. */
interface Traced {
  running: RunningArtifact[];
  origins: ReportProvenance[];
}

const byTrail = (x: { flow: string; trail: string }, y: { flow: string; trail: string }) =>
  `${x.flow}/${x.trail}`.localeCompare(`${y.flow}/${y.trail}`);

async function trace(reads: DocReads, org: string, running: RunningArtifact[]): Promise<Traced> {
  // Provenance and compliance are assessed afresh: what an earlier assessment said is dropped.
  const bare = running.map(({ provenance: _p, compliant: _c, policy_decision: _d, ...a }) => a);
  if (running.length === 0) return { running: bare, origins: [] };
  const origins = await provenanceOf(reads, org, {
    fingerprints: [...new Set(bare.map((a) => a.fingerprint))],
  });
  // Grouped once by fingerprint: a lookup per artifact, not a pass over every report.
  const byFingerprint = new Map<string, ReportProvenance[]>();
  for (const origin of origins) {
    const mine = byFingerprint.get(origin.report.fingerprint);
    if (mine) mine.push(origin);
    else byFingerprint.set(origin.report.fingerprint, [origin]);
  }
  const traced = bare.map((a): RunningArtifact => {
    const mine = byFingerprint.get(a.fingerprint);
    if (!mine) return a;
    const provenance: Provenance[] = mine
      .map(({ report, trail }) => ({
        flow: report.flow,
        trail: report.trail,
        commit: commitOf(report, trail),
        repo: report.repo_info ?? trail?.repo_info ?? null,
      }))
      .sort(byTrail);
    return { ...a, provenance, compliant: mine.every((o) => o.compliant) };
  });
  return { running: traced, origins };
}

const attestationFacts = (a: AttestationView) => ({
  name: a.name,
  type: policyAttestationType(a),
  compliant: a.compliant,
});

/**
 * Judges each running artifact by the attached policies, with what its
 * trails say of it: its flow and the flow's tags, the trails' compliance,
 * the attestations on the trails and on the artifact.
 */
function judgeRunning(policies: NamedPolicy[], { running, origins }: Traced): RunningArtifact[] {
  // The first report of each flow and of each trail, as `find` would pick them, by name.
  const flows = new Map<string, ReportProvenance>();
  const trails = new Map<string, ReportProvenance>();
  for (const o of origins) {
    if (!flows.has(o.report.flow)) flows.set(o.report.flow, o);
    const key = `${o.report.flow}\u0000${o.report.trail}`;
    if (!trails.has(key)) trails.set(key, o);
  }
  const builtIn = artifactsByFingerprint();
  return running.map((artifact) => {
    const provenance = artifact.provenance ?? [];
    const flow = provenance.length ? flows.get(provenance[0].flow)?.flow : undefined;
    const attestations = provenance.flatMap((p) => {
      const trail = trails.get(`${p.flow}\u0000${p.trail}`)?.trail;
      const built = trail ? builtIn(trail).get(artifact.fingerprint) : undefined;
      return [...Object.values(trail?.attestations ?? {}), ...Object.values(built?.attestations ?? {})].map(
        attestationFacts,
      );
    });
    const facts: ArtifactFacts = {
      name: artifact.artifact_name,
      fingerprint: artifact.fingerprint,
      flow: flow ? { name: flow.name, tags: tagsOf(flow.tags) } : null,
      trailCompliant: provenance.length ? (artifact.compliant ?? false) : null,
      attestations,
    };
    const decision = judgeArtifact(policies, facts);
    return { ...artifact, compliant: decision.compliant, policy_decision: decision };
  });
}

/** A trail's artifacts by fingerprint (the first of each, as `find` would), built once per trail when first asked. */
function artifactsByFingerprint(): (trail: TrailView) => Map<string, TrailView['artifacts'][number]> {
  const built = new Map<TrailView, Map<string, TrailView['artifacts'][number]>>();
  return (trail) => {
    let byFingerprint = built.get(trail);
    if (!byFingerprint) {
      byFingerprint = new Map();
      for (const a of trail.artifacts)
        if (!byFingerprint.has(a.fingerprint)) byFingerprint.set(a.fingerprint, a);
      built.set(trail, byFingerprint);
    }
    return byFingerprint;
  };
}
