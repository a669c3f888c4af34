import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MemoryReadStore, type Update } from '#des/read-store';
import { BatchOverlay } from './batch-overlay';
import { applyAllOnce, type PositionedWrite } from './guarded-write';

const id = fc.constantFrom('d1', 'd2', 'd3');
const field = fc.constantFrom('a', 'b', 'n');
// `n` holds only numbers (it is $inc'ed); `a` and `b` anything.
const update: fc.Arbitrary<Update> = fc.oneof(
  fc
    .record(
      {
        a: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant({ k: [1] })),
        b: fc.constantFrom('x', null),
        n: fc.integer({ min: 0, max: 3 }),
      },
      { requiredKeys: [] },
    )
    .filter((set) => Object.keys(set).length > 0)
    .map(($set) => ({ $set })),
  field.map((f) => ({ $unset: { [f]: '' } })),
  fc.record({ $inc: fc.record({ n: fc.integer({ min: 1, max: 3 }) }) }),
  fc.record({ $setOnInsert: fc.record({ born: fc.integer({ min: 0, max: 3 }) }) }),
);
/** A batch: writes and reads in order; some positions already applied before (a replay after a crash). */
const step = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), id, update, once: fc.boolean() }),
  fc.record({ kind: fc.constant('read' as const), id }),
);

async function docs(store: MemoryReadStore) {
  return store.collection('c').find({}, { sort: { _id: 1 } });
}

describe('projector batch overlay', () => {
  it('given any batch of writes and reads, then reads see every write before them, and the coalesced writes leave the store as one write at a time does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 25 }),
        fc.array(fc.record({ id, update }), { maxLength: 3 }),
        fc.integer({ min: 0, max: 6 }),
        async (steps, before, appliedUpTo) => {
          const oneByOne = new MemoryReadStore();
          const coalesced = new MemoryReadStore();
          // What the store held before the batch, at positions 1..n.
          for (const [i, b] of before.entries()) {
            const w = { write: { collection: 'c', id: b.id, update: b.update }, position: i + 1 };
            await applyAllOnce(oneByOne, 'c', [w]);
            await applyAllOnce(coalesced, 'c', [w]);
          }
          const overlay = new BatchOverlay();
          const pending: PositionedWrite[] = [];
          let position = Math.max(before.length, appliedUpTo);
          for (const s of steps) {
            if (s.kind === 'write') {
              // Write-once documents get ids of their own (never also updated).
              const w: PositionedWrite = {
                write: s.once
                  ? { collection: 'c', id: `once-${position}`, update: { $set: { v: position } }, once: true }
                  : { collection: 'c', id: s.id, update: s.update },
                position: ++position,
              };
              pending.push(w);
              overlay.written(w);
              await applyAllOnce(oneByOne, 'c', [w]);
            } else {
              const known = overlay.get('c', s.id);
              const seen =
                known !== undefined
                  ? known
                  : overlay.load('c', s.id, await coalesced.collection('c').findOne({ _id: s.id }), pending);
              assert.deepEqual(seen, await oneByOne.collection('c').findOne({ _id: s.id }));
            }
          }
          const sent = overlay.coalesce(pending);
          assert.ok(sent.length <= pending.length);
          await applyAllOnce(coalesced, 'c', sent);
          assert.deepEqual(await docs(coalesced), await docs(oneByOne));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sends one write for a document read and written by every event of a batch', () => {
    const overlay = new BatchOverlay();
    const pending: PositionedWrite[] = [];
    overlay.load('trails', 't', { _id: 't', n: 0, old: true, _pos: 1 }, pending);
    for (let position = 2; position <= 501; position++) {
      const w = {
        write: { collection: 'trails', id: 't', update: { $inc: { n: 1 }, $unset: { old: '' } } },
        position,
      };
      pending.push(w);
      overlay.written(w);
    }
    assert.deepEqual(overlay.get('trails', 't'), { _id: 't', n: 500, _pos: 501 });
    const sent = overlay.coalesce(pending);
    assert.deepEqual(sent, [
      {
        write: { collection: 'trails', id: 't', update: { $set: { n: 500 }, $unset: { old: '' } } },
        position: 501,
      },
    ]);
  });
});
