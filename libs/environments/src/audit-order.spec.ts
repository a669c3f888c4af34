import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryReadStore } from '#des/read-store';
import { sequence } from './environments.projection';

describe('audit-log row order (seq)', () => {
  // KurrentDB positions are byte offsets: 1 TB of log is a position of 1e12.
  const pairs: [number, number][] = [
    [3, 0],
    [3, 1],
    [42, 0],
    [1e12, 0],
    [1e12, 1],
    [1e12, 99_999],
    [1e12 + 1, 0],
    [Number.MAX_SAFE_INTEGER, 0],
  ];

  it('is distinct and ordered for every (position, entry) pair, past 2^53 / 100000', () => {
    const keys = pairs.map(([position, i]) => sequence(position, i));
    for (let k = 1; k < keys.length; k++) {
      assert.ok(keys[k - 1] < keys[k], `${keys[k - 1]} < ${keys[k]}`);
    }
  });

  it('sorts in the read store as the pairs do', async () => {
    const reads = new MemoryReadStore();
    const rows = reads.collection('rows');
    const shuffled = [...pairs].reverse();
    for (const [position, i] of shuffled) {
      await rows.updateOne(
        { _id: `${position}/${i}` },
        { $set: { seq: sequence(position, i) } },
        { upsert: true },
      );
    }
    const sorted = await rows.find({}, { sort: { seq: 1 } });
    assert.deepEqual(
      sorted.map((d) => d._id),
      pairs.map(([position, i]) => `${position}/${i}`),
    );
  });
});
