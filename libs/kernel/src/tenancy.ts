/** What a service account (and so each of its keys) may do, from least to most. */
export const PRIVILEGES = ['reader', 'snapshotter', 'member', 'admin'] as const;
export type Privilege = (typeof PRIVILEGES)[number];

/**
 * reader: GET only. snapshotter: reader + create environments and report
 * snapshots. member: every write but accounts, keys, policies and actions.
 * admin: everything.
 */
export function allows(held: Privilege, required: Privilege): boolean {
  return PRIVILEGES.indexOf(held) >= PRIVILEGES.indexOf(required);
}

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
  /** Heavy answers (bundles, PDFs, CSV exports) of the organization in flight at once, per API process (429 past it). */
  heavyOperations: number;
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
  'heavyOperations',
] as const satisfies readonly (keyof TenantLimits)[];
