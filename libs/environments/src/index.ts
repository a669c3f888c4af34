/** What `#des/environments` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { ChangeEnvironment } from './environment.commands';
export {
  artifactProvenance,
  snapshotView,
  type ArtifactProvenance,
  type SnapshotArtifactView,
  type SnapshotView,
} from './compliance-model';
export { environmentStream, type EnvironmentEvent, type SnapshotEntry } from './environment.decider';
export { environmentsFeature } from './environments.module';
export { environmentsProjection } from './environments.projection';
export {
  auditRowsBetween,
  environmentKinds,
  environmentNamed,
  environmentsNamed,
  environmentsRunning,
  environmentsWithPolicy,
  snapshotNamed,
  snapshotsBetween,
  snapshotsNumbered,
  type AuditRow,
  type EnvironmentKind,
} from './environments.queries';
export { SnapshotFieldsDto } from './environments.dto';
export { REPORT_ROUTE, refuseUntakeableReport, type ReportLimits, scanReport } from './k8s-report-body';
export {
  SNAPSHOT_INTERVAL,
  SNAPSHOT_INTERVAL_MESSAGE,
  parseSnapshotRef,
  SNAPSHOT_REF_FORMS,
  snapshotIndex,
  snapshotInterval,
} from './snapshot-ref';
