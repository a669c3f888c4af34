import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  jsonTextExcess,
  MAX_JSON_DEPTH,
  MAX_JSON_NODES,
  MAX_OBJECT_KEYS,
  textNestsDeeperThan,
} from './json-depth';

/** The definition the text scan is held to: a walk of the parsed value (without recursion). */
function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};
const text = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null');

describe('JSON nesting depth, read from the text', () => {
  it('takes text up to the limit, and refuses one level more', () => {
    assert.equal(textNestsDeeperThan(text(nested(MAX_JSON_DEPTH))), false);
    assert.equal(textNestsDeeperThan(text(nested(MAX_JSON_DEPTH + 1))), true);
    assert.equal(textNestsDeeperThan(text({ a: 1, b: [1, 2, { c: 'x' }] })), false);
    assert.equal(textNestsDeeperThan(text('text')), false);
    assert.equal(textNestsDeeperThan(text(null)), false);
  });

  it('reads a million levels without building them', () => {
    assert.equal(
      textNestsDeeperThan(Buffer.from('{"a":'.repeat(1_000_000) + '1' + '}'.repeat(1_000_000))),
      true,
    );
  });

  it('agrees with the parsed value, whatever the strings hold', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), (value, limit) => {
        assert.equal(textNestsDeeperThan(text(value), limit), nestsDeeperThan(value, limit));
      }),
      { numRuns: 2000 },
    );
    assert.equal(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1)), true, 'the reference counts as the scan does');
    assert.equal(textNestsDeeperThan(Buffer.from('{"a":"[[[[\\"[[["}'), 1), false);
    assert.equal(textNestsDeeperThan(Buffer.from('['.repeat(3_000_000)), 100), true);
  });
});

describe('JSON object width, read from the text', () => {
  /** The widest object of the parsed value. */
  function widest(value: unknown): number {
    let most = 0;
    const stack = [value];
    while (stack.length) {
      const current = stack.pop();
      if (current === null || typeof current !== 'object') continue;
      if (!Array.isArray(current)) most = Math.max(most, Object.keys(current).length);
      stack.push(...Object.values(current));
    }
    return most;
  }

  it('agrees with the parsed value: keys in strings, arrays and nested objects are not the object’s', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 6 }), (value, limit) => {
        const excess = jsonTextExcess(text(value), MAX_JSON_DEPTH, limit);
        assert.equal(excess === 'keys', widest(value) > limit, JSON.stringify(value));
      }),
    );
  });

  it('refuses an object of one key more than MAX_OBJECT_KEYS, and takes that many per object however many objects', () => {
    const object = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, ':']));
    assert.equal(jsonTextExcess(text({ tags: object(MAX_OBJECT_KEYS + 1) })), 'keys');
    assert.equal(jsonTextExcess(text([object(MAX_OBJECT_KEYS), object(MAX_OBJECT_KEYS)])), undefined);
    assert.equal(jsonTextExcess(text(nested(MAX_JSON_DEPTH + 1))), 'depth');
  });

  it('refuses more values than MAX_JSON_NODES, counted from commas and brackets outside strings', () => {
    assert.equal(jsonTextExcess(text({ v: Array(MAX_JSON_NODES + 2).fill(0) })), 'nodes');
    assert.equal(jsonTextExcess(text({ v: Array(MAX_JSON_NODES - 10).fill(0) })), undefined);
    assert.equal(jsonTextExcess(text({ v: ','.repeat(10 * MAX_JSON_NODES) })), undefined);
  });
});
