import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryReadStore } from '#des/read-store';
import { advanceEach, forgetPositions, POSITIONS, positionsFrom } from './checkpoint-positions';
import { CHECKPOINTS } from './projection';
import { ProjectionCheckpoints } from './projection-checkpoints';

describe('checkpoint positions in one document', () => {
  it('given advances, a rebuild’s forgetting and per-name documents written before, then each name reads its furthest position', async () => {
    const store = new MemoryReadStore();
    const c = store.collection('_checkpoints');
    await c.updateOne(
      { _id: POSITIONS },
      advanceEach([
        ['trails', 7],
        ['reaction:actions', 7],
        ['a.b', 7],
      ]),
      {
        upsert: true,
      },
    );
    await c.updateOne({ _id: POSITIONS }, advanceEach([['trails', 9]]), { upsert: true });
    await c.updateOne({ _id: POSITIONS }, advanceEach([['trails', 8]]), { upsert: true }); // never back
    await c.updateOne({ _id: 'legacy' }, { $set: { position: 5 } }, { upsert: true });
    await c.updateOne({ _id: 'a.b' }, { $set: { position: 3, failed: { position: 4 } } }, { upsert: true });
    assert.deepEqual(Object.fromEntries(positionsFrom(await c.find({}))), {
      trails: 9,
      'reaction:actions': 7,
      'a.b': 7,
      legacy: 5,
    });
    await c.updateOne({ _id: POSITIONS }, forgetPositions(['trails', 'a.b']));
    assert.deepEqual(Object.fromEntries(positionsFrom(await c.find({}))), {
      'reaction:actions': 7,
      'a.b': 3,
      legacy: 5,
    });
  });
});

describe('ProjectionCheckpoints, deferred moves', () => {
  it('holds a deferred move in memory, writes it with the next write or at flush, and never moves one back', async () => {
    const store = new MemoryReadStore();
    const saved = async () => Object.fromEntries(positionsFrom(await store.collection(CHECKPOINTS).find({})));
    const checkpoints = new ProjectionCheckpoints(store);
    await checkpoints.load(['trails', 'reaction:echo']);
    await checkpoints.advance(['reaction:echo'], 4, { defer: true });
    assert.equal(checkpoints.of('reaction:echo'), 4);
    assert.deepEqual(await saved(), {}, 'nothing written yet');
    await checkpoints.advance(['trails'], 5);
    assert.deepEqual(await saved(), { trails: 5, 'reaction:echo': 4 }, 'one write carries both');
    await checkpoints.advance(['reaction:echo'], 5, { defer: true });
    await checkpoints.flushDeferred();
    assert.deepEqual(await saved(), { trails: 5, 'reaction:echo': 5 });
  });

  it('writes at once a move that clears a failure record', async () => {
    const store = new MemoryReadStore();
    const checkpoints = new ProjectionCheckpoints(store);
    await checkpoints.load(['reaction:echo']);
    await checkpoints.recordFailure({ projection: 'reaction:echo', position: 3, error: 'boom', at: 0 });
    await checkpoints.advance(['reaction:echo'], 3, { defer: true });
    const docs = await store.collection(CHECKPOINTS).find({});
    assert.equal(positionsFrom(docs).get('reaction:echo'), 3);
    assert.equal(docs.find((d) => d._id === 'reaction:echo')?.failed, undefined);
  });
});
