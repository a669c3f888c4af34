import { resolve } from 'node:path';
import type { TenantLimits } from '#des/kernel';
import { type JsonShapeLimits, MAX_JSON_NODES, MAX_OBJECT_KEYS } from './json-depth';
import { TENANT_LIMIT_SETTINGS } from './tenant-limits';
import { TENANT_PROGRAM_SETTINGS, TenantProgramsConfig } from './tenant-programs';
import {
  boolean,
  ConfigError,
  integer,
  oneOf,
  optionalInteger,
  readSettings,
  redactUrl,
  type Setting,
  text,
  url,
} from './settings';

/** `cli`: one-off commands; it neither projects nor waits for the read models. */
export type Role = 'all' | 'api' | 'worker' | 'projector' | 'cli';

export type EventStoreConfig = { kind: 'sqlite'; path: string } | { kind: 'kurrentdb'; url: string };
export type ReadStoreConfig = { kind: 'memory' } | { kind: 'mongodb'; url: string; database?: string };
export type JobsConfig =
  | { kind: 'in-process' }
  | {
      kind: 'bullmq';
      url: string;
      prefix?: string;
      /** A dead worker's job is taken up again after this (the same in every process). */
      lockMs: number;
    };

export interface Config {
  /** embedded: no server configured, everything in one process. */
  mode: 'embedded' | 'server';
  eventStore: EventStoreConfig;
  readStore: ReadStoreConfig;
  jobs: JobsConfig;
  host: string;
  port: number;
  /** Worker and projector processes: the port of their probes and metrics (0: none; unset: by role, see `opsPortOf`). */
  opsPort?: number;
  /** On SIGTERM/SIGINT: how long requests in flight and a job under way may take to finish. */
  shutdownTimeoutMs: number;
  /** What a connection may cost before its caller is known (issue 49, ADR 0037). */
  http: HttpLimitsConfig;
  /** When set, `/metrics` answers only a caller presenting it as a Bearer token (then with per-organization series). */
  metricsToken?: string;
  /** A file holding the service key (a mounted secret). */
  serviceKeyFile?: string;
  /** The organization made at the first start on an empty log. */
  firstOrganization: string;
  /** The address users reach the service at (behind a proxy), for the workspace links in answers. */
  publicUrl?: string;
  /** The transparency log: its key's name, how often a grown tree is signed, the RFC 3161 TSA that timestamps checkpoints (none: no timestamps). */
  ledger: { name: string; checkpointMs: number; tsaUrl?: string };
  dataDir: string;
  /** How long a write waits for the read models to reflect it. */
  readYourWritesTimeoutMs: number;
  /** An Idempotency-Key claimed this long without an answer is taken as abandoned (its process died mid-request). */
  idempotencyClaimTimeoutMs: number;
  /** Events per projector batch (one checkpoint per batch). */
  projectorBatchSize: number;
  /** Read-model writes per round trip. */
  projectorFlushSize: number;
  /** How long a projector's lease lasts unless renewed. */
  projectorLeaseMs: number;
  /**
   * Embedded mode: the in-memory read models are saved to the data directory
   * at most this often while events come in, and at shutdown, and loaded at
   * start (0: never saved, rebuilt from the log at every start).
   */
  readModelsSaveMs: number;
  /** Time budget of one policy evaluation before it is stopped (`timeout`). */
  policyBudgetMs: number;
  /** The OPA compiler (`OPA_PATH`); else `opa` on the PATH or the one setup builds. */
  opaPath?: string;
  /** Warm child processes evaluating policies beside each worker process (default: up to 4, one per core). */
  policyThreads?: number;
  /** Budgets of one evaluation: the input it may assemble, its thread's heap, how often it may start (ADR 0039). */
  evaluationBudgets: EvaluationBudgets;
  /** How long a call to an unreachable server may take before it is answered 503. */
  connectTimeoutMs: number;
  /** Most bytes one append may carry; both event stores refuse more (413). Match KurrentDB's MaxAppendSize. */
  maxAppendSize: number;
  /** The shape a JSON body (or `data_json`) may have, read from its text before it is parsed. */
  json: JsonShapeLimits;
  /** Most image digests per pod and per environment report, counted from the text as it arrives. */
  maxReportDigestsPerPod: number;
  maxReportDigests: number;
  /** Most artifacts one Kosli `search` answer shows. */
  kosliSearchArtifacts: number;
  logLevel: string;
  actions: ActionsConfig;
  /** Every organization's limits unless an operator overrides them (see tenant-limits.ts). */
  tenantLimits: TenantLimits;
  /** Budgets of tenants' jq rules and JSON schemas (see tenant-programs.ts). */
  tenantPrograms: TenantProgramsConfig;
  /** Heavy answers (bundles, PDFs, CSV exports) in flight at once in this process, all organizations together. */
  heavyOperations: number;
  /** Server mode: queries one organization may have in flight at the read-model server from one process (ADR 0017). */
  orgConcurrentReads: number;
  /**
   * Report PDFs carry a structure tree for screen readers (`DES_PDF_TAGGED=true`): Chromium then
   * takes about twice as long and writes files ten times larger, so it is off by default.
   */
  pdfTagged: boolean;
  /** Fault injection for the crash tests (`DES_FAULT_KILL_AFTER_WRITES`): SIGKILL this process after N read-model writes. */
  faultKillAfterWrites?: number;
}

/** The HTTP server's timeouts and caps (ADR 0037). */
export interface HttpLimitsConfig {
  /** A request's line and headers must have arrived within this after its connection opened or its previous request ended. */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must have arrived within this. */
  requestTimeoutMs: number;
  /** A connection with no byte in either direction for this long is closed (0: never). */
  idleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Requests one keep-alive connection may carry (0: no limit). */
  maxRequestsPerSocket: number;
  /** Connections open at once in this process. */
  maxConnections: number;
  /** Connections open at once from one remote address (0: no cap of its own). */
  maxConnectionsPerAddress: number;
  /** Bytes of JSON bodies one organization may have being read at once in this process. */
  orgBodyBytesInFlight: number;
  /** Bytes of JSON bodies all organizations may have being read at once in this process. */
  bodyBytesInFlight: number;
}

/** What one evaluation may cost, whatever its context holds (ADR 0039). */
export interface EvaluationBudgets {
  /** Bytes of the context's trails (their events as stored, and the input as assembled); over it: 413 or `failed`. */
  inputBytes: number;
  /** Heap of a process evaluating policies; over it the evaluation fails and the process is replaced. */
  policyHeapMb: number;
  /** Runs an evaluation may start without finishing (the process died under it); then it is recorded `failed`. */
  maxStarts: number;
}

/** Delivery of action notifications. */
export interface ActionsConfig {
  /** Targets may resolve to private, loopback or link-local addresses (`DES_ACTIONS_ALLOW_PRIVATE_TARGETS=true`). */
  allowPrivateTargets: boolean;
  /** Key the actions' signing secrets are derived from; else a key file in the data directory. */
  signingKey?: string;
  /** One delivery attempt's time limit. */
  timeoutMs: number;
  /** Tries per delivery before it is dead-lettered. */
  attempts: number;
  /** First back-off delay; doubled each try, with jitter. */
  backoffMs: number;
  /** Consecutive failed tries (no answer, connection error, 5xx, 429) that open a target's circuit. */
  breakerFailures: number;
  /** How long an open circuit refuses tries before one trial goes. */
  breakerCooldownMs: number;
}

/**
 * Every variable the service reads besides the tenants' limits and programs
 * (tenant-limits.ts, tenant-programs.ts): one definition that checks the
 * values at start and produces the docs' table (settings.ts).
 */
export const SETTINGS = {
  port: integer('PORT', 8080, 'where the API listens', { max: 65535 }),
  host: text('HOST', '0.0.0.0', 'the address the API listens on'),
  opsPort: optionalInteger(
    'DES_OPS_PORT',
    'worker and projector processes: the port serving `/health/live`, `/health/ready` and `/metrics` (0: none); the defaults differ so both run on one host',
    '9464 (projector), 9465 (worker)',
    0,
  ),
  publicUrl: url(
    'DES_PUBLIC_URL',
    ['http', 'https'],
    'the address users reach the service at (behind a proxy); the workspace links (`html_url`) in answers start with it (default: the address the request came to)',
  ),
  dataDir: text(
    'DES_DATA_DIR',
    './data',
    'where the service keeps its files: the embedded event log, saved read models, attachments, keys',
    'a directory path',
  ),
  eventStoreUrl: text(
    'EVENT_STORE_URL',
    undefined,
    '`sqlite:<path>` or `kurrentdb://host:2113?tls=false` (default: `sqlite:<DES_DATA_DIR>/events.db`)',
    '`sqlite:<path>` or a KurrentDB URL',
  ),
  kurrentDbUrl: url(
    'KURRENTDB_URL',
    ['kurrentdb', 'kdb', 'esdb', 'esdb+discover', 'kurrentdb+discover'],
    'KurrentDB connection string (wins over `EVENT_STORE_URL`)',
  ),
  mongoDbUrl: url('MONGODB_URL', ['mongodb', 'mongodb+srv'], 'read models in MongoDB'),
  mongoDbDatabase: text('MONGODB_DATABASE', undefined, "the read models' database (default: the URL's)"),
  redisUrl: url('REDIS_URL', ['redis', 'rediss'], 'BullMQ jobs on Redis'),
  queuePrefix: text('DES_QUEUE_PREFIX', undefined, "prefix of the jobs' Redis keys (separates deployments)"),
  jobLockMs: integer(
    'DES_JOB_LOCK_MS',
    30_000,
    "a dead worker's job is taken up again after this (same in every process)",
    { min: 1000 },
  ),
  ledgerName: text(
    'DES_LEDGER_NAME',
    'delivery-evidence',
    "the transparency log's key name (checkpoints' origin `<name>/<org>`)",
  ),
  ledgerCheckpointMs: integer(
    'DES_LEDGER_CHECKPOINT_MS',
    1000,
    'how often at most a grown tree gets a signed checkpoint',
    { min: 10 },
  ),
  tsaUrl: url(
    'DES_TSA_URL',
    ['http', 'https'],
    'an RFC 3161 time-stamping authority: each signed checkpoint is timestamped there and put in evidence bundles as `checkpoint.tsr`',
  ),
  readYourWritesTimeoutMs: integer(
    'DES_READ_YOUR_WRITES_TIMEOUT_MS',
    5000,
    'how long a write waits for the read models to show it (past it the write answers 503 saying it is recorded, ADR 0045)',
  ),
  idempotencyClaimTimeoutMs: integer(
    'DES_IDEMPOTENCY_CLAIM_TIMEOUT_MS',
    120_000,
    'when an `Idempotency-Key` claimed by a request that never answered lapses',
    { min: 1 },
  ),
  projectorBatchSize: integer(
    'DES_PROJECTOR_BATCH_SIZE',
    500,
    'events per projector batch (one checkpoint each)',
    { min: 1 },
  ),
  projectorFlushSize: integer('DES_PROJECTOR_FLUSH_SIZE', 100, 'read-model writes per round trip', {
    min: 1,
  }),
  projectorLeaseMs: integer(
    'DES_PROJECTOR_LEASE_MS',
    10_000,
    'projector lease; another instance takes over after it lapses',
    { min: 100 },
  ),
  readModelsSaveMs: integer(
    'DES_READ_MODELS_SAVE_MS',
    30_000,
    'embedded: save the read models at most this often (and at shutdown); `0`: never, rebuild at every start',
  ),
  connectTimeoutMs: integer(
    'DES_CONNECT_TIMEOUT_MS',
    3000,
    'how long a call to an unreachable server may take before a 503',
    { min: 1 },
  ),
  maxAppendSize: integer(
    'DES_MAX_APPEND_SIZE',
    1024 * 1024,
    "largest append in bytes (KurrentDB's MaxAppendSize); over it: 413",
    { min: 1024 },
  ),
  jsonMaxKeysPerObject: integer(
    'DES_JSON_MAX_KEYS_PER_OBJECT',
    MAX_OBJECT_KEYS,
    'most keys one object of a JSON body (or `data_json`) may have; over it: 400 (outside free-form fields such as user data, at most 256 keys an object and 10,000 values, whatever this says)',
    { min: 1 },
  ),
  jsonMaxValues: integer(
    'DES_JSON_MAX_VALUES',
    MAX_JSON_NODES,
    'most values (array items, object members) one JSON body (or `data_json`) may hold; over it: 400',
    { min: 1 },
  ),
  maxReportDigestsPerPod: integer(
    'DES_MAX_REPORT_DIGESTS_PER_POD',
    64,
    'most image digests one pod (or unit) of an environment report may name; over it: 400',
    { min: 1 },
  ),
  maxReportDigests: integer(
    'DES_MAX_REPORT_DIGESTS',
    20_000,
    'most image digests one environment report may name in all; over it: 413',
    { min: 1 },
  ),
  kosliSearchArtifacts: integer(
    'DES_KOSLI_SEARCH_ARTIFACTS',
    100,
    'most artifacts one Kosli `search` answer shows (the newest); its counts and matches stay whole',
    { min: 1 },
  ),
  policyBudgetMs: integer(
    'DES_POLICY_BUDGET_MS',
    2000,
    'time budget of one policy evaluation before it fails with `timeout`',
    { min: 1 },
  ),
  policyThreads: optionalInteger(
    'DES_POLICY_THREADS',
    'warm child processes evaluating policies beside each process that runs jobs',
    'cores, at most 4',
  ),
  evaluationInputBytes: integer(
    'DES_EVALUATION_INPUT_BYTES',
    64 * 1024 * 1024,
    "bytes of an evaluation's trails (as stored, and as assembled) it may read; over it: 413, or the evaluation fails",
    { min: 1024 },
  ),
  policyHeapMb: integer(
    'DES_POLICY_HEAP_MB',
    256,
    'heap of each process evaluating policies; an evaluation over it fails alone and the process is replaced',
    { min: 32 },
  ),
  evaluationMaxStarts: integer(
    'DES_EVALUATION_MAX_STARTS',
    3,
    'times an evaluation may start without finishing (its process died) before it is recorded failed',
    { min: 1 },
  ),
  opaPath: text(
    'OPA_PATH',
    undefined,
    'the OPA compiler (default: `opa` on the PATH, else the one setup builds)',
    'a file path',
  ),
  logLevel: oneOf(
    'LOG_LEVEL',
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
    'info',
    "the logs' level (JSON lines; readable text when stdout is a terminal)",
  ),
  shutdownTimeoutMs: integer(
    'DES_SHUTDOWN_TIMEOUT_MS',
    20_000,
    'on SIGTERM or SIGINT: how long requests in flight (and a job under way) may take to finish',
    { min: 0 },
  ),
  httpHeadersTimeoutMs: integer(
    'DES_HTTP_HEADERS_TIMEOUT_MS',
    10_000,
    "a request's line and headers must arrive within this, counted from its connection's opening (a connection that sends nothing is closed then) or its previous request's end; past it: 408 and the connection closes",
    { min: 100 },
  ),
  httpRequestTimeoutMs: integer(
    'DES_HTTP_REQUEST_TIMEOUT_MS',
    60_000,
    'a whole request, headers and body, must arrive within this (a slowly sent body too); past it: 408 and the connection closes; keep it above `DES_UPLOAD_REQUEST_BYTES` × `DES_ORG_CONCURRENT_UPLOADS` ÷ `DES_ORG_UPLOAD_BYTES_PER_SECOND`',
    { min: 100 },
  ),
  httpIdleTimeoutMs: integer(
    'DES_HTTP_IDLE_TIMEOUT_MS',
    120_000,
    'a connection with no byte sent or received for this long is closed, also while its answer is being written (`0`: never)',
  ),
  httpKeepAliveTimeoutMs: integer(
    'DES_HTTP_KEEP_ALIVE_TIMEOUT_MS',
    5000,
    'an idle keep-alive connection is closed after this (behind a load balancer: above its idle timeout)',
    { min: 1 },
  ),
  httpMaxRequestsPerSocket: integer(
    'DES_HTTP_MAX_REQUESTS_PER_SOCKET',
    1000,
    'requests one keep-alive connection may carry; the last is answered with `Connection: close` (`0`: no limit)',
  ),
  httpMaxConnections: integer(
    'DES_HTTP_MAX_CONNECTIONS',
    1000,
    'connections open at once; past it the oldest idle connection is closed for the new one, or the new one if none is idle',
    { min: 1 },
  ),
  httpMaxConnectionsPerAddress: integer(
    'DES_HTTP_MAX_CONNECTIONS_PER_ADDRESS',
    256,
    "connections open at once from one client address, reclaimed the same way (`0`: only the total); behind a proxy every client shares the proxy's address: raise it to `DES_HTTP_MAX_CONNECTIONS` or set `0`",
  ),
  httpOrgBodyBytesInFlight: integer(
    'DES_HTTP_ORG_BODY_BYTES_IN_FLIGHT',
    32 * 1024 * 1024,
    "bytes of JSON bodies one organization's requests may be sending at once (declared lengths; 10 MiB for a body of unknown length); past it: 429 before the body is read",
    { min: 10 * 1024 * 1024, shownDefault: '33554432 (32 MiB)' },
  ),
  httpBodyBytesInFlight: integer(
    'DES_HTTP_BODY_BYTES_IN_FLIGHT',
    128 * 1024 * 1024,
    "bytes of JSON bodies all organizations' requests may be sending at once; past it: 429 before the body is read",
    { min: 10 * 1024 * 1024, shownDefault: '134217728 (128 MiB)' },
  ),
  metricsToken: text(
    'DES_METRICS_TOKEN',
    undefined,
    '`/metrics` then answers only a caller presenting it (`Authorization: Bearer <token>`), with every series; unset: anyone, without the per-organization series',
    'a secret text',
  ),
  allowPrivateTargets: boolean(
    'DES_ACTIONS_ALLOW_PRIVATE_TARGETS',
    false,
    'let action targets resolve to private, loopback or link-local addresses',
  ),
  serviceKey: text(
    'DES_ACTIONS_SIGNING_KEY',
    undefined,
    "the service key: signed checkpoints, actions' signing secrets and the encryption of kept idempotent answers derive from it (same in every process; default: `DES_SERVICE_KEY_FILE`, else a key file made in the data directory)",
    'text of 16 characters or more',
  ),
  serviceKeyFile: text(
    'DES_SERVICE_KEY_FILE',
    undefined,
    'a file holding the service key (a mounted secret)',
    'a file path',
  ),
  actionsTimeoutMs: integer('DES_ACTIONS_TIMEOUT_MS', 5000, 'time limit of one notification try', { min: 1 }),
  actionsAttempts: integer('DES_ACTIONS_ATTEMPTS', 5, 'tries per notification before it is dead-lettered', {
    min: 1,
  }),
  actionsBackoffMs: integer(
    'DES_ACTIONS_BACKOFF_MS',
    1000,
    'first retry delay (doubled each try, with jitter)',
  ),
  actionsBreakerFailures: integer(
    'DES_ACTIONS_BREAKER_FAILURES',
    5,
    'a webhook target failing this often in a row is skipped for the cooldown',
    { min: 1 },
  ),
  actionsBreakerCooldownMs: integer(
    'DES_ACTIONS_BREAKER_COOLDOWN_MS',
    30_000,
    'how long a failing target is skipped',
  ),
  heavyOperations: integer(
    'DES_HEAVY_OPERATIONS',
    6,
    'heavy answers (bundles, PDFs, CSV exports) in flight at once in one API process, all organizations together',
    { min: 1 },
  ),
  orgConcurrentReads: integer(
    'DES_ORG_CONCURRENT_READS',
    8,
    "server mode: one organization's queries in flight at the read-model server from one process",
    { min: 1 },
  ),
  pdfTagged: boolean(
    'DES_PDF_TAGGED',
    false,
    '`true`: report PDFs carry a structure tree for screen readers (about twice the render time, ten times the size)',
  ),
  firstOrganization: text('DES_ORG', 'demo', 'the organization made at the first start on an empty log'),
  faultKillAfterWrites: optionalInteger(
    'DES_FAULT_KILL_AFTER_WRITES',
    'fault injection for the crash test: SIGKILL the projector after N read-model writes',
    '',
  ),
};

/** Every setting, in the docs' order. */
export const ALL_SETTINGS: Setting<unknown>[] = [
  ...Object.values(SETTINGS),
  ...Object.values(TENANT_LIMIT_SETTINGS),
  ...Object.values(TENANT_PROGRAM_SETTINGS),
] as Setting<unknown>[];

/**
 * Configuration from environment variables; none set means embedded. A
 * wrong value throws a `ConfigError` naming every variable that is wrong.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const read = <T>(f: () => T): T => {
    try {
      return f();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return undefined as T;
    }
  };
  const s = read(() => readSettings(SETTINGS, env));
  const tenantLimits = read(() => readSettings(TENANT_LIMIT_SETTINGS, env));
  const tenantPrograms = read(() => readSettings(TENANT_PROGRAM_SETTINGS, env));
  const dataDir = s && resolve(s.dataDir!);
  const eventStore = s && read(() => eventStoreFrom(s.kurrentDbUrl ?? s.eventStoreUrl, dataDir));
  if (problems.length) throw new ConfigError(problems);
  const readStore: ReadStoreConfig = s.mongoDbUrl
    ? { kind: 'mongodb', url: s.mongoDbUrl, database: s.mongoDbDatabase }
    : { kind: 'memory' };
  const jobs: JobsConfig = s.redisUrl
    ? { kind: 'bullmq', url: s.redisUrl, prefix: s.queuePrefix, lockMs: s.jobLockMs }
    : { kind: 'in-process' };
  const server = readStore.kind === 'mongodb' || jobs.kind === 'bullmq' || eventStore.kind === 'kurrentdb';
  return {
    mode: server ? 'server' : 'embedded',
    eventStore,
    readStore,
    jobs,
    host: s.host!,
    port: s.port,
    opsPort: s.opsPort,
    publicUrl: s.publicUrl,
    ledger: {
      name: s.ledgerName!,
      checkpointMs: s.ledgerCheckpointMs,
      ...(s.tsaUrl ? { tsaUrl: s.tsaUrl } : {}),
    },
    dataDir,
    readYourWritesTimeoutMs: s.readYourWritesTimeoutMs,
    idempotencyClaimTimeoutMs: s.idempotencyClaimTimeoutMs,
    projectorBatchSize: s.projectorBatchSize,
    projectorFlushSize: s.projectorFlushSize,
    projectorLeaseMs: s.projectorLeaseMs,
    readModelsSaveMs: s.readModelsSaveMs,
    connectTimeoutMs: s.connectTimeoutMs,
    maxAppendSize: s.maxAppendSize,
    json: { maxKeysPerObject: s.jsonMaxKeysPerObject, maxValues: s.jsonMaxValues },
    maxReportDigestsPerPod: s.maxReportDigestsPerPod,
    maxReportDigests: s.maxReportDigests,
    kosliSearchArtifacts: s.kosliSearchArtifacts,
    policyBudgetMs: s.policyBudgetMs,
    opaPath: s.opaPath,
    policyThreads: s.policyThreads,
    evaluationBudgets: {
      inputBytes: s.evaluationInputBytes,
      policyHeapMb: s.policyHeapMb,
      maxStarts: s.evaluationMaxStarts,
    },
    logLevel: s.logLevel,
    shutdownTimeoutMs: s.shutdownTimeoutMs,
    http: {
      headersTimeoutMs: Math.min(s.httpHeadersTimeoutMs, s.httpRequestTimeoutMs),
      requestTimeoutMs: s.httpRequestTimeoutMs,
      idleTimeoutMs: s.httpIdleTimeoutMs,
      keepAliveTimeoutMs: s.httpKeepAliveTimeoutMs,
      maxRequestsPerSocket: s.httpMaxRequestsPerSocket,
      maxConnections: s.httpMaxConnections,
      maxConnectionsPerAddress: s.httpMaxConnectionsPerAddress,
      orgBodyBytesInFlight: Math.min(s.httpOrgBodyBytesInFlight, s.httpBodyBytesInFlight),
      bodyBytesInFlight: s.httpBodyBytesInFlight,
    },
    metricsToken: s.metricsToken,
    serviceKeyFile: s.serviceKeyFile ? resolve(s.serviceKeyFile) : undefined,
    firstOrganization: s.firstOrganization!,
    actions: {
      allowPrivateTargets: s.allowPrivateTargets,
      signingKey: s.serviceKey,
      timeoutMs: s.actionsTimeoutMs,
      attempts: s.actionsAttempts,
      backoffMs: s.actionsBackoffMs,
      breakerFailures: s.actionsBreakerFailures,
      breakerCooldownMs: s.actionsBreakerCooldownMs,
    },
    tenantLimits,
    tenantPrograms,
    heavyOperations: s.heavyOperations,
    orgConcurrentReads: s.orgConcurrentReads,
    pdfTagged: s.pdfTagged,
    faultKillAfterWrites: s.faultKillAfterWrites,
  };
}

/** KURRENTDB_URL, or EVENT_STORE_URL as `kurrentdb://…`/`esdb://…` or `sqlite:<path>`; default a SQLite file. */
function eventStoreFrom(url: string | undefined, dataDir: string): EventStoreConfig {
  if (!url) return { kind: 'sqlite', path: resolve(dataDir, 'events.db') };
  if (/^(kurrentdb|kdb|esdb|esdb\+discover|kurrentdb\+discover):\/\//.test(url))
    return { kind: 'kurrentdb', url };
  if (url.startsWith('sqlite:') && url.length > 'sqlite:'.length)
    return { kind: 'sqlite', path: resolve(url.slice('sqlite:'.length)) };
  throw new ConfigError([
    `EVENT_STORE_URL='${redactUrl(url)}' is not an event store; expected kurrentdb://host:port?... or sqlite:<path>`,
  ]);
}

/** The port a worker or projector process serves its probes and metrics on (0: none). */
export function opsPortOf(config: Config, role: Role): number {
  return config.opsPort ?? (role === 'worker' ? 9465 : 9464);
}

/** Which roles a process plays: embedded `all` runs API, projector and workers together. */
export function runs(role: Role, part: Exclude<Role, 'all' | 'cli'>): boolean {
  return role === 'all' || role === part;
}
