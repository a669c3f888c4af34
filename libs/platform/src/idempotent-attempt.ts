import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';

/**
 * One attempt at a request sent with an `Idempotency-Key`. A process can die
 * after a write is in the log but before the response is recorded; the
 * retry then runs the request again as a new attempt. Every write of an
 * attempt is tagged with it, so the retry finds the writes earlier attempts
 * made and resumes them instead of writing them twice.
 */
export interface IdempotentAttempt {
  /** This attempt's claim on the key. */
  readonly claim: string;
  /** The claims of earlier attempts at the same request that never answered, oldest first. */
  readonly earlier: readonly string[];
  /** Writes so far per stream: the k-th write to a stream resumes an earlier attempt's k-th. */
  readonly writes: Map<string, number>;
}

/** Where an event came from, in its metadata: which attempt, and its how-manieth write to the stream. */
export interface AttemptTag {
  claim: string;
  write: number;
}

export const idempotentAttempts = new AsyncLocalStorage<IdempotentAttempt>();

/**
 * A new identifier (UUID-shaped). Within an attempt it is derived from the
 * request's first attempt and `purpose`, so a retry names the same
 * evaluation, attestation or key the lost attempt named; otherwise random.
 */
export function stableId(purpose: string): string {
  const attempt = idempotentAttempts.getStore();
  if (!attempt) return randomUUID();
  const hex = createHash('sha256')
    .update(`${attempt.earlier[0] ?? attempt.claim}\n${purpose}`)
    .digest('hex');
  // RFC 9562 version 8 (custom) with the RFC variant bits.
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
