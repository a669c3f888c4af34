import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PositionWaiters } from './progress';

describe('PositionWaiters', () => {
  it('resolves waiters as the position passes theirs, and times out the rest', async () => {
    const w = new PositionWaiters();
    const early = w.waitFor(3, 1000);
    const late = w.waitFor(10, 50);
    w.advance(2);
    w.advance(5);
    assert.equal(await early, true);
    assert.equal(await late, false);
    assert.equal(await w.waitFor(4, 0), true, 'already passed');
    assert.equal(w.position, 5);
  });

  it('never moves backwards', () => {
    const w = new PositionWaiters();
    w.advance(7);
    w.advance(4);
    assert.equal(w.position, 7);
  });
});
