/** What `#des/platform` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { AggregateCommand } from './aggregate-command';
export { ApiError, errorBody, RETRY_AFTER_SECONDS, VALIDATION_FAILED } from './api-error';
export { AtQuery, IsInstant, periodOf } from './at-query';
export { safeCell } from './csv-cell';
export { pinnedNow } from './pinned-now';
export { AttachmentStore } from './attachment-store';
export { sendStream } from './streamed-download';
export { bytesInSlices, jsonPieces, sendJson } from './streamed-json';
export { runBackgroundProcess } from './background-process';
export { STORED_YAML, YAML_LIMITS, YamlRefusal, parseBoundedYaml, type YamlLimits } from './bounded-yaml';
export { parseTenantYaml, YamlParsing } from './yaml-parsing';
export { codeFingerprint } from './code-fingerprint';
export { EventLogQuota } from './event-log-quota';
export { CommandExecutor, type ExecuteOptions } from './command-executor';
export { ALL_SETTINGS, loadConfig, runs, type ActionsConfig, type Config, type Role } from './config';
export type { HttpLimitsConfig } from './config';
export { ConfigError, redactUrl, settingsTable } from './settings';
export {
  assertWritableDataDir,
  EX_CONFIG,
  listenError,
  onStopSignal,
  runMain,
  StartupError,
} from './process-runner';
export { nestLogger, processLogger } from './process-logger';
export { SHUTTING_DOWN, ShutdownState } from './shutdown-state';
export { StorageHealth, storageFaultOf } from './storage-health';
export { HealthChecks } from './health-checks';
export { causeOf } from './engine-watch';
export { closeUnread } from './unread-body';
export { ApiCreatedOrUpdated } from './created-or-updated';
export {
  AcceptsDataJson,
  multipartRefusal,
  readUploadedPart,
  uploadedParts,
  type UploadedPart,
} from './data-json.guard';
export { openEngines, openEventStore } from './engines';
export { ErrorBodyFilter } from './error-body.filter';
export { FreeForm } from './free-form';
export { idempotentAttempts, stableId } from './idempotent-attempt';
export {
  jsonExcessMessage,
  type JsonShapeLimits,
  jsonTextExcess,
  MAX_JSON_DEPTH,
  MAX_JSON_NODES,
  MAX_OBJECT_KEYS,
  MAX_STRUCTURED_OBJECT_KEYS,
  MAX_STRUCTURED_VALUES,
  TOO_DEEP,
  textNestsDeeperThan,
} from './json-depth';
export { JsonStringBody, jsonString } from './json-string';
export { JsonTextRefused, parseJsonInSlices, type SlicedJsonLimits } from './sliced-json';
export { Metrics } from './metrics';
export { IsPageNumber, IsPerPage, PageQuery, paged } from './paging';
export { PROJECTOR_LEASE, PlatformRuntime } from './platform-runtime';
export { PlatformModule } from './platform.module';
export { PUBLIC_ROUTE, REQUIRED_PRIVILEGE, Requires } from './privileges';
export { QueueWorkersModule, type QueueConsumer } from './queue-workers.module';
export { ReadModelsAt } from './read-models-at';
export { ReplayedResponse } from './replayed-response';
export { schemaFieldErrors } from './schema-errors';
export { seal, unseal } from './sealed-text';
export { type ReactionFactory, type ServiceFeature } from './service-feature';
export { ServiceKey } from './service-key';
export {
  TENANT_LIMITS,
  TENANT_LIMIT_DEFAULTS,
  tooManyRequests,
  type TenantLimitsSource,
  type TenantUsage,
  type TenantUsageSource,
} from './tenant-limits';
export { type TenantProgramsConfig } from './tenant-programs';
export { TenantSources } from './tenant-sources';
export { ReadModelProgress } from './read-model-progress';
export { TokenBuckets } from './token-buckets';
export { CONFIG, EVENT_STORE, JOBS, PDF_RENDERER, PROJECTION_PROGRESS, READ_STORE, ROLE } from './tokens';
export { UploadAdmission } from './upload-admission';
export {
  ApiHeavyRefusal,
  Heavy,
  HeavyOperationCounts,
  HeavyOperationInterceptor,
  HeavyOperations,
} from './heavy-operations';
export { NAME_PATTERN, NAME_PATTERN_MESSAGE, validationPipe } from './validation';
export { ApiFileResponse } from './api-responses';
export {
  ApiPathVariants,
  MULTIPART_FORM,
  PATH_VARIANTS,
  type JsonSchema,
  type MultipartForm,
  type PathVariants,
} from './api-request-forms';
export {
  kosliAppUrl,
  PUBLIC_URL_SETTING,
  WORKSPACE_PATH,
  workspacePathOfKosliPage,
  workspaceUrl,
} from './workspace-link';
export { currentRequestId, inRequest } from './request-context';
export { answerOnlyWhatWasSeen } from './unseen-writes';
export { BodyBytesInFlight, bodiesInFlightRefusal, type BodyBytesLimit } from './body-bytes-in-flight';
