/** What `#des/trails` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { commitOf, type Commit } from './commit';
export { CommitView, RepoInfoView } from './commit.dto';
export {
  artifactEvidence,
  trailEvidence,
  evidenceSummary,
  pullRequestPeople,
  type AttestationEvidence,
} from './evidence-summary';
export { ChangeTrail } from './trail.commands';
export { type RunningMove } from './trail.decider';
export { TrailTimeMachine, TrailTimeMachineModule } from './trail-time-machine';
export {
  ATTESTATION_TYPES,
  trailStream,
  type ArtifactData,
  type AttestationType,
  type RepoInfo,
  type RunningData,
  type TrailEvent,
} from './trail.events';
export {
  COMPLIANCE_STATUSES,
  trailAsShown,
  trailCompliance,
  type AttestationView,
  type Compliance,
  type ComplianceStatus,
  type TrailView,
} from './trail.view';
export { trailsFeature, TrailReportsModule } from './trails.module';
export { TrailAuditPdf, trailFileName } from './trail-audit-pdf';
export {
  artifactReports,
  artifactReportsByPrefix,
  latestArtifactReports,
  latestCommitInFlow,
  provenanceOf,
  provenanceOfReports,
  trailNamed,
  trailsNamed,
  type ArtifactReport,
  type ReportFilter,
  type ReportProvenance,
} from './trails.queries';
