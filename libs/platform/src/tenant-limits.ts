import { TENANT_LIMIT_NAMES, type TenantLimits } from '#des/kernel';
import { ApiError } from './api-error';

const MiB = 1024 * 1024;

/** Environment variable and default of each limit. */
export const TENANT_LIMIT_DEFAULTS: Record<keyof TenantLimits, { env: string; value: number }> = {
  eventLogBytes: { env: 'DES_ORG_EVENT_LOG_BYTES', value: 1024 * MiB },
  attachmentBytes: { env: 'DES_ORG_ATTACHMENT_BYTES', value: 5 * 1024 * MiB },
  // Far above a platform's CI (a thousand pipelines of 20 writes every 5 minutes is ~70/s),
  // with room for a wave of pipelines finishing at once; per API process (see ADR 0003).
  writesPerSecond: { env: 'DES_ORG_WRITES_PER_SECOND', value: 500 },
  writeBurst: { env: 'DES_ORG_WRITE_BURST', value: 1000 },
  uploadRequestBytes: { env: 'DES_UPLOAD_REQUEST_BYTES', value: 25 * MiB },
  concurrentUploads: { env: 'DES_ORG_CONCURRENT_UPLOADS', value: 4 },
  uploadBytesPerSecond: { env: 'DES_ORG_UPLOAD_BYTES_PER_SECOND', value: 32 * MiB },
  deliveryConcurrency: { env: 'DES_ORG_DELIVERY_CONCURRENCY', value: 4 },
  evaluationConcurrency: { env: 'DES_ORG_EVALUATION_CONCURRENCY', value: 1 },
  pendingEvaluations: { env: 'DES_ORG_PENDING_EVALUATIONS', value: 20 },
};

/** The configured defaults (environment variables over the built-in values). */
export function tenantLimitDefaults(env: NodeJS.ProcessEnv): TenantLimits {
  const limits = {} as TenantLimits;
  for (const name of TENANT_LIMIT_NAMES) {
    const { env: variable, value } = TENANT_LIMIT_DEFAULTS[name];
    const raw = env[variable];
    const parsed = raw === undefined || raw === '' ? value : Number(raw);
    if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${variable} must be a number ≥ 0, got '${raw}'`);
    limits[name] = parsed;
  }
  return limits;
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
export function tooManyRequests(limit: keyof TenantLimits, reason: string, retryAfterSeconds: number): ApiError {
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
  return new ApiError(507, `Storage quota exceeded: this organization's ${what} may hold ${quotaBytes} bytes`, {
    [limit]: `quota of ${quotaBytes} bytes reached`,
  });
}
