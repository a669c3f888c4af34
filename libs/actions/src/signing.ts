import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header names of a signed delivery. */
export const SIGNATURE_HEADER = 'X-Signature-256';
export const TIMESTAMP_HEADER = 'X-Signature-Timestamp';

/**
 * An action's signing secret, derived from the service's key and the
 * action's secret id: the log never holds a secret, and a rotation (a new
 * secret id) gives a new one.
 */
export function actionSecret(key: string, org: string, number: number, secretId: string): string {
  return `whsec_${createHmac('sha256', key).update(`${org}/${number}/${secretId}`).digest('base64url')}`;
}

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`: the timestamp is signed too, so a replay can be refused. */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** What a receiver does: recompute and compare in constant time, and refuse an old timestamp. */
export function verifySignature(
  secret: string,
  timestamp: number,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  if (!Number.isFinite(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signature(secret, timestamp, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
