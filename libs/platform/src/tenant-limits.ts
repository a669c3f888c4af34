import { ApiError } from './api-error';

/**
 * What one organization may use of the shared service (issue 27: no tenant
 * may stop, stall, starve or exhaust the service for the others). Defaults
 * come from configuration (`DES_ORG_*`); an operator overrides them per
 * organization (`npm run cli -- org limits …`). A limit of 0 means unlimited.
 */
export interface TenantLimits {
  /** Bytes of events the organization may keep in the log (quota; refused 507 past it). */
  eventLogBytes: number;
  /** Bytes of attachment files the organization may keep (quota; refused 507 past it). */
  attachmentBytes: number;
  /** Sustained writes per second (token bucket refill; refused 429 with Retry-After past it). */
  writesPerSecond: number;
  /** Writes the bucket holds: the burst allowed above the sustained rate. */
  writeBurst: number;
  /** Bytes of files one request may upload in total (refused 413 past it). */
  uploadRequestBytes: number;
  /** Uploading requests the organization may have in flight at once (refused 429 past it). */
  concurrentUploads: number;
  /** Bytes per second the organization's uploads are read at, in all (paced, never refused). */
  uploadBytesPerSecond: number;
  /** Notification deliveries of the organization running at once, in each worker process. */
  deliveryConcurrency: number;
  /** Evaluations of the organization running at once, in each worker process. */
  evaluationConcurrency: number;
  /** Evaluations requested and not yet finished (refused 429 with Retry-After past it). */
  pendingEvaluations: number;
}

export const TENANT_LIMIT_NAMES = [
  'eventLogBytes',
  'attachmentBytes',
  'writesPerSecond',
  'writeBurst',
  'uploadRequestBytes',
  'concurrentUploads',
  'uploadBytesPerSecond',
  'deliveryConcurrency',
  'evaluationConcurrency',
  'pendingEvaluations',
] as const satisfies readonly (keyof TenantLimits)[];

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
