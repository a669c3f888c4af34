import { ApiError } from './api-error';
import { InFlight } from './in-flight';

export type BodyBytesLimit = 'orgBodyBytesInFlight' | 'bodyBytesInFlight';

/** Seconds a client refused for bodies in flight is asked to wait. */
const BODY_RETRY_AFTER_SECONDS = 2;

/**
 * Bytes of request bodies being read at once in this process, per
 * organization and in all: a body is held (by its declared length) before
 * its first byte is read and given back when its request ends, so one
 * tenant's slow bodies cannot hold the process's memory.
 */
export class BodyBytesInFlight {
  private readonly counts = new InFlight();

  constructor(private readonly limits: { perOrg: number; total: number }) {}

  /** Holds `bytes` for `org`, or answers which limit they would pass (nothing is held then). */
  take(org: string, bytes: number): BodyBytesLimit | undefined {
    const refused = this.counts.take(org, bytes, this.limits.perOrg, this.limits.total);
    if (refused === 'organization') return 'orgBodyBytesInFlight';
    return refused === 'process' ? 'bodyBytesInFlight' : undefined;
  }

  give(org: string, bytes: number): void {
    this.counts.give(org, bytes);
  }

  of(org?: string): number {
    return this.counts.of(org);
  }
}

/** 429 for a body refused before it is read. */
export function bodiesInFlightRefusal(limit: BodyBytesLimit, limitBytes: number): ApiError {
  const whose = limit === 'orgBodyBytesInFlight' ? "this organization's requests" : 'all requests';
  const reason = `${whose} may be sending at most ${limitBytes} bytes of JSON bodies at once`;
  return new ApiError(
    429,
    `Too many requests: ${reason}; retry after ${BODY_RETRY_AFTER_SECONDS} s`,
    { [limit]: reason },
    { 'Retry-After': String(BODY_RETRY_AFTER_SECONDS) },
  );
}
