import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Query } from 'mingo';
import { compileSimpleFilter } from './simple-filter';

const docs: Record<string, unknown>[] = [
  { _id: 'a', n: 1, s: 'x', b: true, z: null, o: { k: 1 } },
  { _id: 'b', n: 5, s: 'y', b: false, o: { k: 2 } },
  { _id: 'c', n: '5', s: 'y' },
  { _id: 'd', s: 'z', list: [1, 2] },
  { _id: 'e', n: 10, z: 0 },
];

const filters: Record<string, unknown>[] = [
  { _id: 'a' },
  { n: 5 },
  { n: { $lt: 5 } },
  { n: { $lte: 5 } },
  { n: { $gt: 1, $lt: 10 } },
  { n: { $gte: '5' } },
  { s: { $in: ['x', 'z'] } },
  { s: { $ne: 'y' } },
  { z: null },
  { z: { $ne: null } },
  { b: { $gt: false } },
  { 'o.k': 2 },
  { 'o.k': { $gte: 1 }, s: 'x' },
  { missing: null },
  { missing: { $lt: 3 } },
  { n: { $eq: 10 } },
];

describe('compileSimpleFilter', () => {
  it('agrees with mingo on every document it can judge', () => {
    let compared = 0;
    for (const filter of filters) {
      const predicate = compileSimpleFilter(filter);
      assert.ok(predicate, `compiles ${JSON.stringify(filter)}`);
      const query = new Query(filter);
      for (const doc of docs) {
        const verdict = predicate(doc);
        if (verdict === undefined) continue;
        assert.equal(verdict, query.test(doc), `${JSON.stringify(filter)} on ${JSON.stringify(doc)}`);
        compared++;
      }
    }
    // Only array-valued fields are deferred (doc 'd' under a filter on a key it lacks is still judged).
    assert.ok(compared >= filters.length * (docs.length - 1), `compared ${compared} verdicts`);
  });

  it('defers to the query engine for arrays, sub-documents and other operators', () => {
    assert.equal(compileSimpleFilter({ list: 1 })!({ list: [1, 2] }), undefined);
    assert.equal(compileSimpleFilter({ o: 1 })!({ o: { k: 1 } }), undefined);
    assert.equal(compileSimpleFilter({ $or: [{ a: 1 }] }), undefined);
    assert.equal(compileSimpleFilter({ a: { $exists: true } }), undefined);
    assert.equal(compileSimpleFilter({ a: { $in: [[1]] } }), undefined);
    assert.equal(compileSimpleFilter({ a: { k: 1 } }), undefined);
  });
});
