import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MemoryReadStore } from './memory-read-store';
import type { Filter } from './read-store.port';

const value = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 1, 2, true, null),
  fc.constant(['a', 'b']),
  fc.constant({ x: 1 }),
);
const doc = fc.record(
  {
    env: value,
    nested: fc.oneof(fc.record({ k: value }), fc.constant([{ k: 'a' }, { k: 'b' }])),
    n: fc.oneof(fc.nat(9), fc.constant([1, 2])),
  },
  { requiredKeys: [] },
);
const scalar = fc.constantFrom('a', 'b', 'c', 1, 2, true, null);
const field = fc.constantFrom('env', 'nested.k', 'n');
const filter: fc.Arbitrary<Filter> = fc.oneof(
  fc.record({ f: field, v: scalar }).map(({ f, v }) => ({ [f]: v })),
  fc.record({ f: field, v: scalar }).map(({ f, v }) => ({ [f]: { $eq: v } })),
  fc.record({ f: field, v: fc.array(scalar, { maxLength: 3 }) }).map(({ f, v }) => ({ [f]: { $in: v } })),
  fc.record({ v: scalar, n: fc.nat(9) }).map(({ v, n }) => ({ env: v, n: { $gte: n } })),
  fc.record({ v: scalar, n: fc.nat(9) }).map(({ v, n }) => ({ env: v, n })),
  fc
    .record({ v: fc.array(scalar, { maxLength: 3 }), n: fc.array(fc.nat(9), { maxLength: 3 }) })
    .map(({ v, n }) => ({ n: { $in: n }, env: { $in: v } })),
);

type Op =
  | { kind: 'put'; id: number; doc: Record<string, unknown> }
  | { kind: 'delete'; id: number }
  | { kind: 'fork' }
  | { kind: 'query'; filter: Filter };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('put' as const), id: fc.nat(30), doc }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.nat(30) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fork' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('query' as const), filter }) },
);

describe('the memory store’s secondary indexes', () => {
  it('given any writes, deletes and forks, when queried by equality or $in, then the answer (and its order) is what a scan gives', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 120 }), async (ops) => {
        let indexed = new MemoryReadStore();
        let scanned = new MemoryReadStore();
        await indexed.ensureIndexes('c', [
          { name: 'env', keys: { env: 1, n: -1 } },
          { name: 'nested', keys: { 'nested.k': 1 } },
          { name: 'n', keys: { n: 1 } },
        ]);
        for (const o of ops) {
          if (o.kind === 'put') {
            const update = { $set: { ...o.doc, v: Math.random() } };
            await indexed.collection('c').deleteMany({ _id: `d${o.id}` });
            await scanned.collection('c').deleteMany({ _id: `d${o.id}` });
            await indexed.collection('c').updateOne({ _id: `d${o.id}` }, update, { upsert: true });
            await scanned.collection('c').updateOne({ _id: `d${o.id}` }, update, { upsert: true });
          } else if (o.kind === 'delete') {
            await indexed.collection('c').deleteMany({ _id: `d${o.id}` });
            await scanned.collection('c').deleteMany({ _id: `d${o.id}` });
          } else if (o.kind === 'fork') {
            indexed = indexed.fork();
            scanned = scanned.fork();
          } else {
            assert.deepEqual(
              await indexed.collection('c').find(o.filter),
              await scanned.collection('c').find(o.filter),
              JSON.stringify(o.filter),
            );
            assert.equal(
              await indexed.collection('c').count(o.filter),
              await scanned.collection('c').count(o.filter),
            );
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('given a unique index, when a write clashes on it, then it is refused however many documents there are', async () => {
    const store = new MemoryReadStore();
    await store.ensureIndexes('keys', [{ name: 'by_hash', keys: { hash: 1 }, unique: true }]);
    for (let i = 0; i < 3000; i++) {
      await store
        .collection('keys')
        .updateOne({ _id: `k${i}` }, { $set: { hash: `h${i}` } }, { upsert: true });
    }
    await assert.rejects(
      store.collection('keys').updateOne({ _id: 'new' }, { $set: { hash: 'h2999' } }, { upsert: true }),
      /Duplicate key in keys \(index by_hash\)/,
    );
    // Updating a document to its own key is no clash.
    await store.collection('keys').updateOne({ _id: 'k5' }, { $set: { hash: 'h5', x: 1 } });
    assert.deepEqual(await store.collection('keys').find({ hash: 'h5' }), [{ _id: 'k5', hash: 'h5', x: 1 }]);
    // A fork builds its own indexes when queried enough; changes on either side stay there.
    const fork = store.fork();
    await fork.collection('keys').updateOne({ _id: 'k5' }, { $set: { hash: 'moved' } });
    await store.collection('keys').deleteMany({ _id: 'k6' });
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await fork.collection('keys').find({ hash: { $in: ['h5', 'moved', 'h6'] } }), [
        { _id: 'k5', hash: 'moved', x: 1 },
        { _id: 'k6', hash: 'h6' },
      ]);
      assert.deepEqual(await store.collection('keys').find({ hash: { $in: ['h5', 'moved', 'h6'] } }), [
        { _id: 'k5', hash: 'h5', x: 1 },
      ]);
    }
  });
});
