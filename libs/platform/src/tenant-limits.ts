import { TENANT_LIMIT_NAMES, type TenantLimits } from '#des/kernel';
import { ApiError } from './api-error';
import { integer, readSettings, type Setting } from './settings';

const MiB = 1024 * 1024;

/** Environment variable, default and meaning of each limit (docs/limits.md tells more). */
export const TENANT_LIMIT_DEFAULTS: Record<
  keyof TenantLimits,
  { env: string; value: number; meaning: string }
> = {
  eventLogBytes: {
    env: 'DES_ORG_EVENT_LOG_BYTES',
    value: 1024 * MiB,
    meaning: "bytes of an organization's events the log may hold (0: no limit)",
  },
  attachmentBytes: {
    env: 'DES_ORG_ATTACHMENT_BYTES',
    value: 5 * 1024 * MiB,
    meaning: "bytes of an organization's attachment files (0: no limit)",
  },
  // Far above a platform's CI (a thousand pipelines of 20 writes every 5 minutes is ~70/s),
  // with room for a wave of pipelines finishing at once; per API process (see ADR 0003).
  writesPerSecond: {
    env: 'DES_ORG_WRITES_PER_SECOND',
    value: 500,
    meaning: "an organization's sustained writes per second, per API process",
  },
  writeBurst: { env: 'DES_ORG_WRITE_BURST', value: 1000, meaning: "an organization's writes in a burst" },
  uploadRequestBytes: {
    env: 'DES_UPLOAD_REQUEST_BYTES',
    value: 25 * MiB,
    meaning: 'bytes of files one request may carry',
  },
  concurrentUploads: {
    env: 'DES_ORG_CONCURRENT_UPLOADS',
    value: 4,
    meaning: "an organization's uploading requests at once",
  },
  uploadBytesPerSecond: {
    env: 'DES_ORG_UPLOAD_BYTES_PER_SECOND',
    value: 32 * MiB,
    meaning: "bytes per second read from an organization's uploads, in all",
  },
  deliveryConcurrency: {
    env: 'DES_ORG_DELIVERY_CONCURRENCY',
    value: 4,
    meaning: "an organization's notification deliveries at once, per worker process",
  },
  evaluationConcurrency: {
    env: 'DES_ORG_EVALUATION_CONCURRENCY',
    value: 1,
    meaning: "an organization's evaluations running at once, per worker process",
  },
  pendingEvaluations: {
    env: 'DES_ORG_PENDING_EVALUATIONS',
    value: 20,
    meaning: "an organization's evaluations requested and not finished",
  },
  heavyOperations: {
    env: 'DES_ORG_HEAVY_OPERATIONS',
    value: 2,
    meaning:
      "an organization's heavy answers (bundles, PDFs, CSV exports) in flight at once, per API process",
  },
};

/** Each limit's setting: an integer ≥ 0 from its variable (see settings.ts). */
export const TENANT_LIMIT_SETTINGS = Object.fromEntries(
  TENANT_LIMIT_NAMES.map((name) => {
    const { env, value, meaning } = TENANT_LIMIT_DEFAULTS[name];
    return [name, integer(env, value, meaning)];
  }),
) as Record<keyof TenantLimits, Setting<number>>;

/** The configured defaults (environment variables over the built-in values). */
export function tenantLimitDefaults(env: NodeJS.ProcessEnv): TenantLimits {
  return readSettings(TENANT_LIMIT_SETTINGS, env);
}

/** Resolves an organization's effective limits (its overrides over the defaults). */
export interface TenantLimitsSource {
  limitsFor(org: string): Promise<TenantLimits>;
}

export const TENANT_LIMITS = Symbol('TENANT_LIMITS');

/** What an organization keeps now, counted against its quotas. */
export interface TenantUsage {
  eventLogBytes: number;
  attachmentBytes: number;
}

/** Reads an organization's usage (the accounts feature counts it from the log). */
export interface TenantUsageSource {
  usageOf(org: string): Promise<TenantUsage>;
}

export const TENANT_USAGE = Symbol('TENANT_USAGE');

/** Room left under a quota (Infinity when the limit is 0, i.e. unlimited). */
export const roomUnder = (limit: number, used: number): number =>
  limit === 0 ? Infinity : Math.max(0, limit - used);

/** 429 with Retry-After: a tenant's rate or concurrency limit; waiting helps. */
export function tooManyRequests(
  limit: keyof TenantLimits,
  reason: string,
  retryAfterSeconds: number,
): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(
    429,
    `Too many requests: ${reason}; retry after ${seconds} s`,
    { [limit]: reason },
    { 'Retry-After': String(seconds) },
  );
}

/** 507: a tenant's storage quota is used up; waiting does not help, an operator raises it. */
export function quotaExceeded(limit: 'eventLogBytes' | 'attachmentBytes', quotaBytes: number): ApiError {
  const what = limit === 'eventLogBytes' ? 'event log' : 'attachments';
  return new ApiError(
    507,
    `Storage quota exceeded: this organization's ${what} may hold ${quotaBytes} bytes`,
    {
      [limit]: `quota of ${quotaBytes} bytes reached`,
    },
  );
}
