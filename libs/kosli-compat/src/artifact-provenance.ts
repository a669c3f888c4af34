import { FLOWS, flowId, type FlowTemplate } from '#des/flows';
import type { Doc, ReadStore } from '#des/read-store';
import { ARTIFACTS, type Compliance, TRAILS, trailCompliance, trailId, type TrailView } from '#des/trails';
import { withoutInternals } from '#des/projections';

/** Where an artifact (by fingerprint) was reported: its flow, trail, commit and that trail's compliance. */
export interface Provenance {
  flow: string;
  trail: string;
  git_commit: string | null;
  commit_url: string | null;
  view: TrailView | null;
  template: FlowTemplate | null;
  /** The trail's compliance (null: no trail), and whether it is COMPLIANT. */
  compliance: Compliance | null;
  compliant: boolean;
}

/** The artifact's reports in an organization (optionally one flow), each with its trail as it is now. */
export async function provenanceOf(
  reads: ReadStore,
  org: string,
  fingerprint: string,
  flow?: string,
): Promise<Provenance[]> {
  const artifacts = await reads
    .collection(ARTIFACTS)
    .find(flow ? { org, flow, fingerprint } : { org, fingerprint }, { sort: { flow: 1 } });
  return Promise.all(artifacts.map((a) => provenanceOfReport(reads, org, a)));
}

/** One report of an artifact (its document in the artifacts read model), with its trail as it is now. */
export async function provenanceOfReport(reads: ReadStore, org: string, artifact: Doc): Promise<Provenance> {
  const flow = artifact.flow as string;
  const trail = artifact.trail as string;
  const [flowDoc, trailDoc] = await Promise.all([
    reads.collection(FLOWS).findOne({ _id: flowId(org, flow) }),
    reads.collection(TRAILS).findOne({ _id: trailId(org, flow, trail) }),
  ]);
  const template = (flowDoc?.template as FlowTemplate | null | undefined) ?? null;
  const view = trailDoc ? (withoutInternals(trailDoc) as unknown as TrailView) : null;
  const compliance = view ? trailCompliance(view, template) : null;
  return {
    flow,
    trail,
    git_commit: (artifact.git_commit as string | null) ?? null,
    commit_url: (artifact.commit_url as string | null) ?? null,
    view,
    template,
    compliance,
    compliant: compliance?.status === 'COMPLIANT',
  };
}
