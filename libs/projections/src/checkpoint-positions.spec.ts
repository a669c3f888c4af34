import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryReadStore } from '#des/read-store';
import { advancePositions, forgetPositions, POSITIONS, positionsFrom } from './checkpoint-positions';

describe('checkpoint positions in one document', () => {
  it('given advances, a rebuild’s forgetting and per-name documents written before, then each name reads its furthest position', async () => {
    const store = new MemoryReadStore();
    const c = store.collection('_checkpoints');
    await c.updateOne({ _id: POSITIONS }, advancePositions(['trails', 'reaction:actions', 'a.b'], 7), {
      upsert: true,
    });
    await c.updateOne({ _id: POSITIONS }, advancePositions(['trails'], 9), { upsert: true });
    await c.updateOne({ _id: POSITIONS }, advancePositions(['trails'], 8), { upsert: true }); // never back
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
