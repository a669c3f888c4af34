import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, nestsDeeperThan, textNestsDeeperThan } from './json-depth';

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('JSON nesting depth', () => {
  it('takes values up to the limit, and refuses one level more', () => {
    assert.equal(nestsDeeperThan(nested(MAX_JSON_DEPTH)), false);
    assert.equal(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1)), true);
    assert.equal(nestsDeeperThan({ a: 1, b: [1, 2, { c: 'x' }] }), false);
    assert.equal(nestsDeeperThan('text'), false);
    assert.equal(nestsDeeperThan(null), false);
  });

  it('walks a million levels without running out of stack', () => {
    assert.equal(nestsDeeperThan(nested(1_000_000)), true);
  });
});

describe('JSON nesting depth, read from the text', () => {
  it('agrees with the parsed value, whatever the strings hold', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), (value, limit) => {
        const text = Buffer.from(JSON.stringify(value) ?? 'null');
        assert.equal(textNestsDeeperThan(text, limit), nestsDeeperThan(value, limit));
      }),
      { numRuns: 2000 },
    );
    assert.equal(textNestsDeeperThan(Buffer.from('{"a":"[[[[\\"[[["}'), 1), false);
    assert.equal(textNestsDeeperThan(Buffer.from('['.repeat(3_000_000)), 100), true);
  });
});
