import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENTS_BOUND, eventsBound } from './events-bounds';

describe("log environment's --start and --end", () => {
  it('reads a snapshot number, one before the latest, now, or a time ago', () => {
    assert.deepEqual(eventsBound('2', 9, 1000), { snapshot: 2 });
    assert.deepEqual(eventsBound('~3', 9, 1000), { snapshot: 6 });
    assert.deepEqual(eventsBound('NOW', 9, 10_000), { at: 10_000 });
    assert.deepEqual(eventsBound('1hour', 9, 10_000), { at: 6_400 });
    assert.deepEqual(eventsBound('2 days', 9, 200_000), { at: 27_200 });
  });

  it('takes only those forms', () => {
    for (const good of ['1', '~0', 'NOW', '1hour', '3minutes', '2 weeks']) assert.match(good, EVENTS_BOUND);
    for (const bad of ['', 'now', '-1', '1h', 'yesterday', '1hour ago'])
      assert.doesNotMatch(bad, EVENTS_BOUND);
  });
});
