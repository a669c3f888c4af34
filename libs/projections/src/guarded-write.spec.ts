import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MemoryReadStore, type Update } from '#des/read-store';
import { applyAllOnce, applyOnce, type PositionedWrite } from './guarded-write';

const id = fc.constantFrom('d1', 'd2', 'd3');
const update: fc.Arbitrary<Update> = fc.oneof(
  fc.record({ $set: fc.record({ a: fc.integer({ min: 0, max: 3 }) }) }),
  fc.record({ $inc: fc.record({ n: fc.integer({ min: 1, max: 3 }) }) }),
  fc.record({ $push: fc.record({ list: fc.integer({ min: 0, max: 3 }) }) }),
  fc.record({ $setOnInsert: fc.record({ born: fc.integer({ min: 0, max: 3 }) }) }),
  fc.constant({ $unset: { a: '' } }),
);

async function docs(store: MemoryReadStore) {
  return store.collection('c').find({}, { sort: { _id: 1 } });
}

describe('guarded writes: documents a write makes (fresh)', () => {
  it('given any writes, some marking the document as made by them, and a prefix applied before (a replay), then the store ends as with one guarded write at a time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ id, update, fresh: fc.boolean() }), { minLength: 1, maxLength: 20 }),
        fc.nat({ max: 20 }),
        async (steps, appliedBefore) => {
          const writes: PositionedWrite[] = steps.map((s, i) => ({
            write: {
              collection: 'c',
              id: s.id,
              update: s.update,
              ...(s.fresh ? { fresh: true as const } : {}),
            },
            position: i + 1,
          }));
          const oneByOne = new MemoryReadStore();
          const batched = new MemoryReadStore();
          for (const w of writes.slice(0, appliedBefore)) {
            await applyOnce(oneByOne, w.write, w.position);
            await applyOnce(batched, w.write, w.position);
          }
          for (const w of writes) await applyOnce(oneByOne, w.write, w.position);
          await applyAllOnce(batched, 'c', writes);
          assert.deepEqual(await docs(batched), await docs(oneByOne));
          // And once more (a replay of the whole batch): nothing changes.
          await applyAllOnce(batched, 'c', writes);
          assert.deepEqual(await docs(batched), await docs(oneByOne));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("makes a document from its first write and the batch's later ones, at the last position", async () => {
    const store = new MemoryReadStore();
    await applyAllOnce(store, 'c', [
      { write: { collection: 'c', id: 'd', update: { $set: { s: 'pending' } }, fresh: true }, position: 7 },
      { write: { collection: 'c', id: 'e', update: { $inc: { n: 1 } } }, position: 8 },
      { write: { collection: 'c', id: 'd', update: { $set: { s: 'done' }, $push: { at: 1 } } }, position: 9 },
    ]);
    assert.deepEqual(await docs(store), [
      { _id: 'd', s: 'done', at: [1], _pos: 9 },
      { _id: 'e', n: 1, _pos: 8 },
    ]);
  });
});
