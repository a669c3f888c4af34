import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentAppends, type StoredRow } from './recent-appends';

const row = (position: number, data = '{}'): StoredRow => ({
  position,
  event_id: `e${position}`,
  stream: 's-acme/x',
  revision: position - 1,
  type: 't',
  data,
  metadata: '{}',
  recorded_at: position,
});

describe('RecentAppends', () => {
  it('answers the run of positions after a given one, stopping at a gap, a limit or a byte bound', () => {
    const recent = new RecentAppends();
    recent.keep([row(1), row(2), row(3), row(5)]);
    assert.deepEqual(
      recent.from(0, 10, 1e6)?.map((r) => r.position),
      [1, 2, 3],
    );
    assert.deepEqual(
      recent.from(1, 1, 1e6)?.map((r) => r.position),
      [2],
    );
    assert.deepEqual(
      recent.from(0, 10, 5)?.map((r) => r.position),
      [1, 2],
      'stops once 5 bytes are held',
    );
    assert.equal(recent.from(3, 10, 1e6), undefined, 'position 4 was not appended here');
    assert.deepEqual(
      recent.from(4, 10, 1e6)?.map((r) => r.position),
      [5],
    );
    assert.equal(recent.last, 5);
  });

  it('forgets the oldest rows past its row or byte bound', () => {
    const byRows = new RecentAppends(3);
    byRows.keep([row(1), row(2), row(3), row(4)]);
    assert.equal(byRows.from(0, 10, 1e6), undefined);
    assert.deepEqual(
      byRows.from(1, 10, 1e6)?.map((r) => r.position),
      [2, 3, 4],
    );
    const byBytes = new RecentAppends(100, 10);
    byBytes.keep([row(1, '"abc"'), row(2, '"abcd"')]);
    assert.equal(byBytes.from(0, 10, 1e6), undefined, 'row 1 made the total pass 10 bytes');
    assert.deepEqual(
      byBytes.from(1, 10, 1e6)?.map((r) => r.position),
      [2],
    );
  });
});
