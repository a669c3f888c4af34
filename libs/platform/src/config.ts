import { resolve } from 'node:path';
import type { TenantLimits } from '#des/kernel';
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
  /** Warm threads evaluating policies in each worker process (default: up to 4, one per core). */
  policyThreads?: number;
  /** How long a call to an unreachable server may take before it is answered 503. */
  connectTimeoutMs: number;
  /** Most bytes one append may carry; both event stores refuse more (413). Match KurrentDB's MaxAppendSize. */
  maxAppendSize: number;
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
    'how long a write waits for the read models to show it',
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
    'warm threads evaluating policies in each process that runs jobs',
    'cores, at most 4',
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
    maxReportDigestsPerPod: s.maxReportDigestsPerPod,
    maxReportDigests: s.maxReportDigests,
    kosliSearchArtifacts: s.kosliSearchArtifacts,
    policyBudgetMs: s.policyBudgetMs,
    opaPath: s.opaPath,
    policyThreads: s.policyThreads,
    logLevel: s.logLevel,
    shutdownTimeoutMs: s.shutdownTimeoutMs,
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
