import type { FlowTemplate } from '#des/flows';
import { docReads, type ReadStore } from '#des/read-store';
import {
  type ArtifactReport,
  type Compliance,
  provenanceOf as origins,
  provenanceOfReports,
  type ReportProvenance,
  type TrailView,
} from '#des/trails';

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

const asKosli = (o: ReportProvenance): Provenance => ({
  flow: o.report.flow,
  trail: o.report.trail,
  git_commit: o.report.git_commit ?? null,
  commit_url: o.report.commit_url ?? null,
  view: o.trail,
  template: o.flow?.template ?? null,
  compliance: o.compliance,
  compliant: o.compliant,
});

/** The artifact's reports in an organization (optionally one flow), each with its trail as it is now. */
export async function provenanceOf(
  reads: ReadStore,
  org: string,
  fingerprint: string,
  flow?: string,
): Promise<Provenance[]> {
  return (await origins(docReads(reads), org, { fingerprints: [fingerprint], flow })).map(asKosli);
}

/** Reports of artifacts, each with its trail as it is now (in their order; each trail read once). */
export async function provenancesOfReports(
  reads: ReadStore,
  org: string,
  reports: ArtifactReport[],
): Promise<Provenance[]> {
  return (await provenanceOfReports(docReads(reads), org, reports)).map(asKosli);
}
