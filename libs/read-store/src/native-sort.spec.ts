import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Query } from 'mingo';
import { nativeSort } from './native-sort';
import type { Doc, Sort } from './read-store.port';

const numbers = fc.record({
  at: fc.integer({ min: 0, max: 5 }),
  name: fc.constantFrom('a', 'b', 'B', 'é', ''),
  nested: fc.record({ n: fc.integer({ min: 0, max: 3 }) }),
});
const anything = fc.record(
  {
    at: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('x', null, true), fc.constant([1])),
    name: fc.constantFrom('a', 'b'),
  },
  { requiredKeys: [] },
);
const sort: fc.Arbitrary<Sort> = fc
  .uniqueArray(fc.constantFrom('at', 'name', 'nested.n'), { minLength: 1, maxLength: 3 })
  .chain((fields) =>
    fc
      .tuple(...fields.map(() => fc.constantFrom(1 as const, -1 as const)))
      .map((dirs) => Object.fromEntries(fields.map((f, i) => [f, dirs[i]]))),
  );

const mingoSort = (docs: Doc[], s: Sort) => new Query({}).find(docs).sort(s).all() as Doc[];

describe('sorting without mingo', () => {
  it('given documents whose sort fields hold numbers or strings, then it sorts as mingo does (ties in their order)', () => {
    fc.assert(
      fc.property(fc.array(numbers, { maxLength: 40 }), sort, (rows, s) => {
        const docs = rows.map((r, i) => ({ _id: `d${i}`, ...r }));
        const sorted = nativeSort(docs, s);
        assert.ok(sorted, 'numbers and strings take the plain path');
        assert.deepEqual(
          sorted.map((d) => d._id),
          mingoSort(docs, s).map((d) => d._id),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('given missing, null, mixed or array values, then it leaves the sort to mingo', () => {
    fc.assert(
      fc.property(fc.array(anything, { maxLength: 20 }), sort, (rows, s) => {
        const docs = rows.map((r, i) => ({ _id: `d${i}`, ...r }) as Doc);
        const sorted = nativeSort(docs, s);
        if (sorted)
          assert.deepEqual(
            sorted.map((d) => d._id),
            mingoSort(docs, s).map((d) => d._id),
          );
      }),
      { numRuns: 500 },
    );
    assert.equal(nativeSort([{ _id: 'a', at: 1 }, { _id: 'b' }], { at: 1 }), undefined);
    assert.equal(
      nativeSort(
        [
          { _id: 'a', at: 1 },
          { _id: 'b', at: 'x' },
        ],
        { at: 1 },
      ),
      undefined,
    );
  });
});
