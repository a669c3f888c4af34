import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBuckets } from './token-buckets';

describe('token buckets', () => {
  it('lets a full burst through, then refuses with the wait one token needs', () => {
    const buckets = new TokenBuckets();
    for (let i = 0; i < 4; i++) assert.deepEqual(buckets.take('a', 2, 4, 0), { ok: true });
    assert.deepEqual(buckets.take('a', 2, 4, 0), { ok: false, retryAfterSeconds: 0.5 });
    assert.deepEqual(buckets.take('a', 2, 4, 250), { ok: false, retryAfterSeconds: 0.25 });
    assert.deepEqual(buckets.take('a', 2, 4, 500), { ok: true });
  });

  it('refills at the rate up to the capacity, and keeps each key apart', () => {
    const buckets = new TokenBuckets();
    for (let i = 0; i < 3; i++) buckets.take('a', 10, 3, 0);
    assert.equal(buckets.take('a', 10, 3, 0).ok, false);
    assert.equal(buckets.take('b', 10, 3, 0).ok, true);
    // An hour later the bucket holds its capacity, no more.
    const later = 3_600_000;
    for (let i = 0; i < 3; i++) assert.equal(buckets.take('a', 10, 3, later).ok, true);
    assert.equal(buckets.take('a', 10, 3, later).ok, false);
  });

  it('a lowered capacity applies at once', () => {
    const buckets = new TokenBuckets();
    buckets.take('a', 1, 100, 0);
    // 99 tokens left, but the bucket now holds one.
    assert.equal(buckets.take('a', 1, 1, 0).ok, true);
    assert.equal(buckets.take('a', 1, 1, 0).ok, false);
  });
});
