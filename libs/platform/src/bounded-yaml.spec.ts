import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBoundedYaml, YAML_LIMITS, YamlRefusal } from './bounded-yaml';

const refusal = (source: string): YamlRefusal => {
  try {
    parseBoundedYaml(source);
  } catch (error) {
    if (error instanceof YamlRefusal) return error;
    throw error;
  }
  assert.fail('the document was accepted');
};

describe('bounded YAML', () => {
  it('reads an ordinary document as the parser does', () => {
    assert.deepEqual(parseBoundedYaml('a: 1\nb: [x, y]\nc:\n  - {d: true}\n'), {
      a: 1,
      b: ['x', 'y'],
      c: [{ d: true }],
    });
    assert.equal(parseBoundedYaml(''), null);
    assert.deepEqual(parseBoundedYaml(Buffer.from('k: v')), { k: 'v' });
  });

  it('refuses a document over its size with 413, before parsing it', () => {
    const big = refusal(`# ${'x'.repeat(YAML_LIMITS.maxBytes)}\n`);
    assert.equal(big.status, 413);
    assert.match(big.message, /256 KiB/);
  });

  it('refuses 40,000 keys or a long flow sequence by their node count, with 400', () => {
    const keys = Array.from({ length: 40_000 }, (_, i) => `k${i}: ${i}`).join('\n');
    const flow = `[${Array(100_000).fill('a').join(',')}]`.slice(0, YAML_LIMITS.maxBytes - 1);
    for (const source of [keys.slice(0, YAML_LIMITS.maxBytes), flow]) {
      const refused = refusal(source);
      assert.deepEqual([refused.kind, refused.status], ['limit', 400]);
      assert.match(refused.message, /more than 2000 nodes/);
    }
  });

  it('refuses deep flow nesting and alias expansion', () => {
    assert.match(refusal('['.repeat(65) + ']'.repeat(65)).message, /nests more than 64/);
    const laughs = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 6; i++)
      laughs.push(
        `${'abcdef'[i]}: &${'abcdef'[i]} [${Array(10)
          .fill(`*${'abcdef'[i - 1]}`)
          .join(', ')}]`,
      );
    assert.match(refusal(laughs.join('\n')).message, /aliases/);
  });

  it('refuses a repeated key as the parser did, naming it and its place', () => {
    const repeated = refusal('a: 1\nb:\n  c: 1\n  c: 2\n');
    assert.deepEqual([repeated.kind, repeated.status], ['syntax', 400]);
    assert.equal(repeated.message, 'Map keys must be unique: "c" at line 4, column 3');
    assert.deepEqual(parseBoundedYaml('a: {b: 1}\nc: {b: 2}'), { a: { b: 1 }, c: { b: 2 } });
  });

  it('refuses the measured bombs from their text, before any parser sees them (issue 49)', () => {
    // 2 KB: on the event loop, the first parse overflowed the stack, the second aborted the process.
    const sequences = refusal(`${'- '.repeat(1000)}x\n`);
    assert.deepEqual([sequences.kind, sequences.status], ['limit', 400]);
    assert.match(sequences.message, /nests more than 64 collections/);
    // 801 bytes: 10.9 s of parse and 449 MB, then a 598 KB message echoing the key.
    const keys = refusal(`${'? '.repeat(400)}x\n`);
    assert.deepEqual([keys.kind, keys.status], ['limit', 400]);
    assert.match(keys.message, /nests a complex key/);
    assert.ok(keys.message.length < 200);
  });

  it('refuses a collection key inside a collection key, found once parsed', () => {
    assert.deepEqual(parseBoundedYaml('? [a, b]\n: c\n'), { '[ a, b ]': 'c' });
    assert.match(refusal('? {[a]: b}\n: c\n').message, /nests a complex key/);
  });

  it('quotes at most 80 characters of a repeated key', () => {
    const key = 'k'.repeat(1000);
    const repeated = refusal(`${key}: 1\n${key}: 2\n`);
    assert.ok(repeated.message.length < 200, repeated.message);
    assert.match(repeated.message, /… \(1000 characters\)/);
  });

  it("answers invalid YAML with the parser's first line", () => {
    const invalid = refusal('a: [1, 2\n');
    assert.equal(invalid.kind, 'syntax');
    assert.doesNotMatch(invalid.message, /\n/);
  });
});
