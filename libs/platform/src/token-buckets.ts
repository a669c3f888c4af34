/** What one take from a bucket answers. */
export type Take = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * One token bucket per key (an organization's writes): `capacity` tokens,
 * refilled at `perSecond`; a take costs one token. Pure, with the clock
 * passed in, so it is tested without waiting.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  take(key: string, perSecond: number, capacity: number, nowMs: number): Take {
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: nowMs };
    const elapsed = Math.max(0, nowMs - bucket.at) / 1000;
    // A lowered capacity applies at once; a raised one fills by the refill.
    const tokens = Math.min(capacity, bucket.tokens + elapsed * perSecond);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: nowMs });
      return { ok: true };
    }
    this.buckets.set(key, { tokens, at: nowMs });
    return { ok: false, retryAfterSeconds: (1 - tokens) / perSecond };
  }
}
