import { type FlowDoc, flowsNamed } from '#des/flows';
import { withoutInternals } from '#des/projections';
import type { Doc, DocReads, ReadStore } from '#des/read-store';
import type { ArtifactData } from './trail.events';
import { type Compliance, trailCompliance, type TrailView } from './trail.view';
import { ARTIFACTS, TRAILS, trailId } from './trails.projection';

/** One report of an artifact: where (flow, trail) and what was reported. */
export type ArtifactReport = Doc &
  ArtifactData & {
    org: string;
    flow: string;
    trail: string;
    reported_at: number;
  };

/** Which reports: of some fingerprints, in one flow and trail, of one commit or a commit's prefix (all given ones hold). */
export interface ReportFilter {
  fingerprints?: string[];
  flow?: string;
  trail?: string;
  commit?: string;
  /** Lower-case hex: the commits that start with it (a short sha). */
  commitPrefix?: string;
}

const reportFilter = (org: string, f: ReportFilter) => ({
  org,
  ...(f.flow !== undefined ? { flow: f.flow } : {}),
  ...(f.trail !== undefined ? { trail: f.trail } : {}),
  ...(f.fingerprints !== undefined ? { fingerprint: { $in: f.fingerprints } } : {}),
  ...(f.commit !== undefined ? { git_commit: f.commit } : {}),
  ...(f.commitPrefix !== undefined
    ? { git_commit: { $regex: `^${f.commitPrefix.replace(/[^0-9a-f]/g, '')}` } }
    : {}),
});

/**
 * The commit of the artifact the flow reported last, other than `except`
 * (on `branch`, when given), or null: where `kosli report artifact` starts
 * the list of commits since.
 */
export async function latestCommitInFlow(
  store: ReadStore,
  org: string,
  flow: string,
  { except, branch }: { except: string; branch?: string },
): Promise<string | null> {
  const [latest] = await store.collection<ArtifactReport>(ARTIFACTS).find(
    {
      org,
      flow,
      fingerprint: { $ne: except },
      git_commit: { $ne: null },
      ...(branch ? { 'git_commit_info.branch': branch } : {}),
    },
    { sort: { reported_at: -1, _id: 1 }, limit: 1 },
  );
  return latest?.git_commit ?? null;
}

/** The reports of artifacts that match `filter`, by flow. */
export async function artifactReports(
  reads: DocReads,
  org: string,
  filter: ReportFilter,
): Promise<ArtifactReport[]> {
  const { fingerprints } = filter;
  if (fingerprints?.length === 0) return [];
  let docs: ArtifactReport[];
  if (fingerprints === undefined || fingerprints.length <= FINGERPRINTS_PER_QUERY)
    docs = (await reads.find(ARTIFACTS, reportFilter(org, filter))) as ArtifactReport[];
  else {
    // A running set's thousands of fingerprints: a batch at a time, each an indexed lookup.
    const distinct = [...new Set(fingerprints)];
    docs = [];
    for (let at = 0; at < distinct.length; at += FINGERPRINTS_PER_QUERY) {
      const batch = distinct.slice(at, at + FINGERPRINTS_PER_QUERY);
      for (const doc of await reads.find(ARTIFACTS, reportFilter(org, { ...filter, fingerprints: batch })))
        docs.push(doc as ArtifactReport);
    }
  }
  return docs.sort((a, b) => (a.flow < b.flow ? -1 : a.flow > b.flow ? 1 : 0));
}

/** Fingerprints one lookup of their reports names (the in-memory store's index takes up to 256). */
const FINGERPRINTS_PER_QUERY = 200;

/** A page of the organization's reports, newest first (optionally of one flow or repository). */
export function latestArtifactReports(
  store: ReadStore,
  org: string,
  filter: { flow?: string; repo?: string },
  page: { skip: number; limit: number },
): Promise<ArtifactReport[]> {
  return store.collection<ArtifactReport>(ARTIFACTS).find(
    {
      org,
      ...(filter.flow ? { flow: filter.flow } : {}),
      ...(filter.repo ? { 'repo_info.name': filter.repo } : {}),
    },
    { sort: { reported_at: -1, _id: 1 }, ...page },
  );
}

/** The reports whose fingerprint, and those whose commit, start with `prefix` (lower-case hex). */
export async function artifactReportsByPrefix(
  store: ReadStore,
  org: string,
  prefix: string,
): Promise<{ byFingerprint: ArtifactReport[]; byCommit: ArtifactReport[] }> {
  const starts = { $regex: `^${prefix.replace(/[^0-9a-f]/g, '')}` };
  const reports = store.collection<ArtifactReport>(ARTIFACTS);
  const [byFingerprint, byCommit] = await Promise.all([
    reports.find({ org, fingerprint: starts }),
    reports.find({ org, git_commit: starts }),
  ]);
  return { byFingerprint, byCommit };
}

/** The trail as the read models hold it (without their bookkeeping), or null. */
export async function trailNamed(
  reads: DocReads,
  org: string,
  flow: string,
  trail: string,
): Promise<TrailView | null> {
  const doc = await reads.get(TRAILS, trailId(org, flow, trail));
  return doc ? (withoutInternals(doc) as unknown as TrailView) : null;
}

/** The trails among `names` (flow and trail) that exist. */
export async function trailsNamed(
  reads: DocReads,
  org: string,
  names: { flow: string; trail: string }[],
): Promise<TrailView[]> {
  if (names.length === 0) return [];
  const ids = [...new Set(names.map((n) => trailId(org, n.flow, n.trail)))];
  return (await reads.find(TRAILS, { _id: { $in: ids } })).map(
    (d) => withoutInternals(d) as unknown as TrailView,
  );
}

/** A report of an artifact with its trail and flow as they are in `reads`, and that trail's compliance. */
export interface ReportProvenance {
  report: ArtifactReport;
  /** null: the trail is not in the read models (never, unless they lag). */
  trail: TrailView | null;
  flow: FlowDoc | null;
  compliance: Compliance | null;
  /** The trail is COMPLIANT by its flow's template. */
  compliant: boolean;
}

/**
 * Where artifacts come from: each report of them (by `filter`), with its
 * trail, its flow and the trail's compliance by the flow's template. The
 * one join of artifact → trail → template every feature asks for.
 */
export async function provenanceOf(
  reads: DocReads,
  org: string,
  filter: ReportFilter,
): Promise<ReportProvenance[]> {
  return provenanceOfReports(reads, org, await artifactReports(reads, org, filter));
}

/** `provenanceOf` for reports already read. */
export async function provenanceOfReports(
  reads: DocReads,
  org: string,
  reports: ArtifactReport[],
): Promise<ReportProvenance[]> {
  if (reports.length === 0) return [];
  const [trails, flows] = await Promise.all([
    trailsNamed(reads, org, reports),
    flowsNamed(
      reads,
      org,
      reports.map((r) => r.flow),
    ),
  ]);
  // By name, each trail's compliance judged once: many reports share a trail (linear in the reports).
  const trailsByName = new Map(trails.map((t) => [`${t.flow}\u0000${t.name}`, t]));
  const flowsByName = new Map(flows.map((f) => [f.name, f]));
  const complianceOf = new Map<TrailView, Compliance>();
  return reports.map((report) => {
    const trail = trailsByName.get(`${report.flow}\u0000${report.trail}`) ?? null;
    const flow = flowsByName.get(report.flow) ?? null;
    let compliance: Compliance | null = null;
    if (trail) {
      compliance = complianceOf.get(trail) ?? trailCompliance(trail, flow?.template ?? null);
      complianceOf.set(trail, compliance);
    }
    return { report, trail, flow, compliance, compliant: compliance?.status === 'COMPLIANT' };
  });
}
