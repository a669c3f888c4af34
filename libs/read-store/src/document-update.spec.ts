import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { deepUpdate, shallowUpdate } from './document-update';
import type { Doc, Update } from './read-store.port';

// `p` is also a parent: `p.a` and `p.b` are fields one level down in it.
const field = fc.constantFrom('a', 'b', 'c', 'n', 'p', 'p.a', 'p.b');
const value = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom('x', 'y', null, true),
  // A new object each time: the general path's deep copy keeps two fields holding one object as one.
  fc.constant(null).map(() => ({ deep: [1, { k: 'v' }] })),
  fc.constant(null).map(() => [1, 2]),
);
const embedded = fc.oneof(fc.dictionary(fc.constantFrom('a', 'b', 'z'), value, { maxKeys: 3, noNullPrototype: true }), value);
const doc = fc
  .tuple(fc.dictionary(fc.constantFrom('a', 'b', 'c', 'n'), value), fc.option(embedded, { freq: 4 }))
  .map(([d, p]) => ({ _id: 'd', ...d, ...(p === null ? {} : { p }) }) as Doc);
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
    let dotted = 0;
    fc.assert(
      fc.property(doc, update, fc.boolean(), (d, u, inserting) => {
        const shallow = shallowUpdate(d, u, inserting);
        if (!shallow) return;
        taken++;
        if (Object.values(u).some((spec) => Object.keys(spec).some((f) => f.includes('.')))) dotted++;
        const deep = deepUpdate(d, u, inserting);
        assert.deepEqual(shallow.next, deep.next);
        assert.deepEqual(Object.keys(shallow.next), Object.keys(deep.next));
        assert.equal(shallow.changed, deep.changed);
      }),
      { numRuns: 3000 },
    );
    assert.ok(taken > 300, `the shallow path took ${taken} of 3000 updates`);
    assert.ok(dotted > 100, `the shallow path took ${dotted} updates one level down`);
  });

  it('given a deeper path, an array element or another operator, then it leaves the update to the general path', () => {
    assert.equal(shallowUpdate({ _id: 'd' }, { $set: { 'a.b.c': 1 } }, false), undefined);
    assert.equal(shallowUpdate({ _id: 'd', a: [1] }, { $set: { 'a.0': 2 } }, false), undefined);
    assert.equal(shallowUpdate({ _id: 'd', a: [1] }, { $set: { 'a.b': 2 } }, false), undefined);
    assert.equal(shallowUpdate({ _id: 'd' }, { $push: { a: 1 } }, false), undefined);
    assert.equal(shallowUpdate({ _id: 'd', a: 'x' }, { $inc: { a: 1 } }, false), undefined);
  });

  it('moves a checkpoint one level down without copying the others, and leaves the stored document as it was', () => {
    const stored = Object.freeze({
      _id: 'd',
      at: Object.freeze({ x: 5, y: 7 }),
      other: Object.freeze({ big: [1] }),
    });
    const { next, changed } = shallowUpdate(stored, { $max: { 'at.x': 9, 'at.y': 3, 'at.new': 1 } }, false)!;
    assert.ok(changed);
    assert.deepEqual(next, { _id: 'd', at: { x: 9, y: 7, new: 1 }, other: { big: [1] } });
    assert.equal(next.other, stored.other);
    assert.deepEqual(stored.at, { x: 5, y: 7 });
  });

  it('copies the top level of the values it sets, as mingo does, so the caller’s container is not the stored one', () => {
    const given = { list: [1] };
    const { next } = shallowUpdate({ _id: 'd' }, { $set: { v: given } }, false)!;
    assert.notEqual(next.v, given);
    assert.deepEqual(next.v, given);
  });
});
