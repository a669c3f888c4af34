import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { deepUpdate, shallowUpdate } from './document-update';
import type { Doc, Update } from './read-store.port';

const field = fc.constantFrom('a', 'b', 'c', 'n');
const value = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom('x', 'y', null, true),
  fc.constant({ deep: [1, { k: 'v' }] }),
  fc.constant([1, 2]),
);
const doc = fc.dictionary(field, value).map((d) => ({ _id: 'd', ...d }) as Doc);
const number = fc.integer({ min: -5, max: 5 });
const operation = fc.oneof(
  fc.record({ op: fc.constant('$set'), v: value }),
  fc.record({ op: fc.constant('$setOnInsert'), v: value }),
  fc.record({ op: fc.constant('$unset'), v: fc.constant('') }),
  fc.record({ op: fc.constant('$inc'), v: number }),
  fc.record({ op: fc.constantFrom('$max', '$min'), v: fc.oneof(number, fc.constantFrom('x', 'y')) }),
);
/** Each field under one operator (MongoDB refuses two on one path); now and then a field under two. */
const update: fc.Arbitrary<Update> = fc
  .tuple(fc.dictionary(field, operation, { minKeys: 1, maxKeys: 3 }), fc.option(operation, { freq: 10 }))
  .map(([byField, twice]) => {
    const u: Update = {};
    for (const [f, { op, v }] of Object.entries(byField)) (u[op] ??= {})[f] = v;
    if (twice) (u[twice.op] ??= {})[Object.keys(byField)[0]] = twice.v;
    return u;
  });

describe('document updates without a deep copy', () => {
  it('given any document and update it takes, when applied, then it gives what mingo gives (fields, their order, changed)', () => {
    let taken = 0;
    fc.assert(
      fc.property(doc, update, fc.boolean(), (d, u, inserting) => {
        const shallow = shallowUpdate(d, u, inserting);
        if (!shallow) return;
        taken++;
        const deep = deepUpdate(d, u, inserting);
        assert.deepEqual(shallow.next, deep.next);
        assert.deepEqual(Object.keys(shallow.next), Object.keys(deep.next));
        assert.equal(shallow.changed, deep.changed);
      }),
      { numRuns: 3000 },
    );
    assert.ok(taken > 300, `the shallow path took ${taken} of 3000 updates`);
  });

  it('given a dotted field or another operator, then it leaves the update to the general path', () => {
    assert.equal(shallowUpdate({ _id: 'd' }, { $set: { 'a.b': 1 } }, false), undefined);
    assert.equal(shallowUpdate({ _id: 'd' }, { $push: { a: 1 } }, false), undefined);
    assert.equal(shallowUpdate({ _id: 'd', a: 'x' }, { $inc: { a: 1 } }, false), undefined);
  });

  it('copies the top level of the values it sets, as mingo does, so the caller’s container is not the stored one', () => {
    const given = { list: [1] };
    const { next } = shallowUpdate({ _id: 'd' }, { $set: { v: given } }, false)!;
    assert.notEqual(next.v, given);
    assert.deepEqual(next.v, given);
  });
});
