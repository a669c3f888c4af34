import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryReadStore } from '#des/read-store';
import { CHECKPOINTS } from './projection';
import { CheckpointPoller, PositionWaiters } from './progress';

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

describe('CheckpointPoller (read-your-writes of an API process that does not project)', () => {
  it('waits for every running projection; one stopped by an event it cannot apply does not hold writes back', async () => {
    const store = new MemoryReadStore();
    const checkpoints = store.collection(CHECKPOINTS);
    const poller = new CheckpointPoller(store, ['a', 'b']);
    await checkpoints.updateOne({ _id: 'a' }, { $set: { position: 10 } }, { upsert: true });
    assert.equal(await poller.appliedPosition(), 0, 'b has no checkpoint yet');
    await checkpoints.updateOne({ _id: 'b' }, { $set: { position: 4 } }, { upsert: true });
    assert.equal(await poller.appliedPosition(), 4);
    assert.equal(await poller.waitFor(10, 20), false);
    await checkpoints.updateOne({ _id: 'b' }, { $set: { failed: { projection: 'b', position: 5 } } });
    assert.equal(await poller.appliedPosition(), 10);
    assert.equal(await poller.waitFor(10, 1000), true);
    await checkpoints.updateOne({ _id: 'a' }, { $set: { failed: { projection: 'a', position: 11 } } });
    assert.equal(await poller.waitFor(1_000_000, 1000), true, 'nothing left to wait for');
  });

  it('answers many waiters from one read of the checkpoints at a time', async () => {
    const store = new MemoryReadStore();
    const checkpoints = store.collection(CHECKPOINTS);
    const poller = new CheckpointPoller(store, ['a']);
    let reads = 0;
    const read = poller.appliedPosition.bind(poller);
    poller.appliedPosition = () => {
      reads++;
      return read();
    };
    const waiting = Array.from({ length: 20 }, (_, i) => poller.waitFor(i + 1, 5_000));
    await checkpoints.updateOne({ _id: 'a' }, { $set: { position: 20 } }, { upsert: true });
    assert.deepEqual(await Promise.all(waiting), Array(20).fill(true));
    assert.ok(reads < 20, `${reads} reads for 20 waiters`);
  });
});
