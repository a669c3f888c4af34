import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, textNestsDeeperThan } from './json-depth';

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
