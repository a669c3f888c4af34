import { resolve } from 'node:path';
import type { TenantLimits } from '#des/kernel';
import { tenantLimitDefaults } from './tenant-limits';
import { TenantProgramsConfig, tenantProgramsConfig } from './tenant-programs';

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
  /** The address users reach the service at (behind a proxy), for the workspace links in answers. */
  publicUrl?: string;
  /** The transparency log: its name (checkpoints' origin `<name>/<org>` and key name), how often it signs. */
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

/** Configuration from environment variables; none set means embedded. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DES_DATA_DIR ?? './data');
  const eventStore = eventStoreFrom(env, dataDir);
  const readStore: ReadStoreConfig = env.MONGODB_URL
    ? { kind: 'mongodb', url: env.MONGODB_URL, database: env.MONGODB_DATABASE }
    : { kind: 'memory' };
  const jobs: JobsConfig = env.REDIS_URL
    ? {
        kind: 'bullmq',
        url: env.REDIS_URL,
        prefix: env.DES_QUEUE_PREFIX,
        lockMs: Number(env.DES_JOB_LOCK_MS ?? 30_000),
      }
    : { kind: 'in-process' };
  const server = readStore.kind === 'mongodb' || jobs.kind === 'bullmq' || eventStore.kind === 'kurrentdb';
  return {
    mode: server ? 'server' : 'embedded',
    eventStore,
    readStore,
    jobs,
    host: env.HOST ?? '0.0.0.0',
    port: Number(env.PORT ?? 8080),
    publicUrl: env.DES_PUBLIC_URL || undefined,
    ledger: {
      name: env.DES_LEDGER_NAME || 'delivery-evidence',
      checkpointMs: Number(env.DES_LEDGER_CHECKPOINT_MS ?? 1000),
      ...(env.DES_TSA_URL ? { tsaUrl: env.DES_TSA_URL } : {}),
    },
    dataDir,
    readYourWritesTimeoutMs: Number(env.DES_READ_YOUR_WRITES_TIMEOUT_MS ?? 5000),
    idempotencyClaimTimeoutMs: Number(env.DES_IDEMPOTENCY_CLAIM_TIMEOUT_MS ?? 120_000),
    projectorBatchSize: Number(env.DES_PROJECTOR_BATCH_SIZE ?? 500),
    projectorFlushSize: Number(env.DES_PROJECTOR_FLUSH_SIZE ?? 100),
    projectorLeaseMs: Number(env.DES_PROJECTOR_LEASE_MS ?? 10_000),
    readModelsSaveMs: Number(env.DES_READ_MODELS_SAVE_MS ?? 30_000),
    connectTimeoutMs: Number(env.DES_CONNECT_TIMEOUT_MS ?? 3000),
    maxAppendSize: Number(env.DES_MAX_APPEND_SIZE ?? 1024 * 1024),
    policyBudgetMs: Number(env.DES_POLICY_BUDGET_MS ?? 2000),
    opaPath: env.OPA_PATH,
    policyThreads: env.DES_POLICY_THREADS ? Number(env.DES_POLICY_THREADS) : undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    actions: {
      allowPrivateTargets: env.DES_ACTIONS_ALLOW_PRIVATE_TARGETS === 'true',
      signingKey: env.DES_ACTIONS_SIGNING_KEY || undefined,
      timeoutMs: Number(env.DES_ACTIONS_TIMEOUT_MS ?? 5000),
      attempts: Number(env.DES_ACTIONS_ATTEMPTS ?? 5),
      backoffMs: Number(env.DES_ACTIONS_BACKOFF_MS ?? 1000),
      breakerFailures: Number(env.DES_ACTIONS_BREAKER_FAILURES ?? 5),
      breakerCooldownMs: Number(env.DES_ACTIONS_BREAKER_COOLDOWN_MS ?? 30_000),
    },
    tenantLimits: tenantLimitDefaults(env),
    tenantPrograms: tenantProgramsConfig(env),
    orgConcurrentReads: Number(env.DES_ORG_CONCURRENT_READS ?? 8),
    pdfTagged: env.DES_PDF_TAGGED === 'true',
    faultKillAfterWrites: positiveInteger(env.DES_FAULT_KILL_AFTER_WRITES),
  };
}

function positiveInteger(setting: string | undefined): number | undefined {
  const n = Number(setting);
  return setting && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** KURRENTDB_URL, or EVENT_STORE_URL as `kurrentdb://…`/`esdb://…` or `sqlite:<path>`; default a SQLite file. */
function eventStoreFrom(env: NodeJS.ProcessEnv, dataDir: string): EventStoreConfig {
  const url = env.KURRENTDB_URL ?? env.EVENT_STORE_URL;
  if (!url) return { kind: 'sqlite', path: resolve(dataDir, 'events.db') };
  if (/^(kurrentdb|kdb|esdb|esdb\+discover|kurrentdb\+discover):\/\//.test(url))
    return { kind: 'kurrentdb', url };
  if (url.startsWith('sqlite:')) return { kind: 'sqlite', path: resolve(url.slice('sqlite:'.length)) };
  throw new Error(`EVENT_STORE_URL must be kurrentdb://… or sqlite:<path>, got '${url}'`);
}

/** Which roles a process plays: embedded `all` runs API, projector and workers together. */
export function runs(role: Role, part: Exclude<Role, 'all' | 'cli'>): boolean {
  return role === 'all' || role === part;
}
