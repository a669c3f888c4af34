import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeavyOperationCounts } from './heavy-operations';

describe('HeavyOperationCounts', () => {
  it("admits an organization's operations up to its cap, and all of them up to the process's", () => {
    const counts = new HeavyOperationCounts();
    assert.equal(counts.enter('a', 2, 3), undefined);
    assert.equal(counts.enter('a', 2, 3), undefined);
    assert.equal(counts.enter('a', 2, 3), 'organization');
    assert.equal(counts.enter('b', 2, 3), undefined);
    assert.equal(counts.enter('c', 2, 3), 'process');
    assert.deepEqual([counts.of('a'), counts.of('b'), counts.of('c'), counts.inFlight], [2, 1, 0, 3]);
  });

  it('gives a place back when an operation ends; 0 is no cap for the organization', () => {
    const counts = new HeavyOperationCounts();
    counts.enter('a', 1, 10);
    assert.equal(counts.enter('a', 1, 10), 'organization');
    counts.leave('a');
    assert.equal(counts.of('a'), 0);
    assert.equal(counts.enter('a', 1, 10), undefined);
    for (let i = 0; i < 9; i++) assert.equal(counts.enter('b', 0, 10), undefined);
    assert.equal(counts.enter('b', 0, 10), 'process');
  });
});
