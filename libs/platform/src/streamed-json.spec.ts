import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bytesInSlices, jsonPieces } from './streamed-json';

describe('jsonPieces', () => {
  const cases: unknown[] = [
    null,
    0,
    'text "quoted" \u2028',
    [],
    {},
    [1, undefined, () => 1, Symbol('s'), null, { a: undefined }],
    { a: 1, b: undefined, c: () => 1, d: [{ e: { f: { g: { h: [1, 2, { i: 'deep' }] } } } }] },
    { when: new Date(0), nested: { when: new Date(1) }, list: [new Date(2)] },
    { 'key "with" quotes': { '': '' }, '\n': [[[[[[]]]]]] },
    {
      attestations: Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`a${i}`, { n: i, data: 'x'.repeat(i) }]),
      ),
    },
  ];
  it('writes the same text as JSON.stringify, in pieces', () => {
    for (const value of cases) assert.equal([...jsonPieces(value)].join(''), JSON.stringify(value));
  });
  it('writes a large object member by member: no piece holds more than one member deep down', () => {
    const large = {
      attestations: Object.fromEntries(
        Array.from({ length: 100 }, (_, i) => [`a${i}`, { data: 'x'.repeat(10_000) }]),
      ),
    };
    const pieces = [...jsonPieces(large)];
    assert.ok(pieces.length > 100);
    assert.ok(Math.max(...pieces.map((p) => p.length)) < 20_000);
  });
});

describe('jsonPieces with an indent, gathered by bytesInSlices', () => {
  it('write the text JSON.stringify(value, null, 2) writes, at any depth of pieces', async () => {
    const value = fc.jsonValue({ maxDepth: 6 });
    await fc.assert(
      fc.asyncProperty(value, fc.integer({ min: 0, max: 6 }), async (v, depth) => {
        const expected = JSON.stringify(v, null, 2);
        assert.equal([...jsonPieces(v, depth, '')].join(''), expected);
        assert.equal([...jsonPieces(v, depth)].join(''), JSON.stringify(v));
        assert.equal((await bytesInSlices(jsonPieces(v, undefined, ''))).toString('utf8'), expected);
      }),
      { numRuns: 400 },
    );
    const odd = {
      a: undefined,
      b: [undefined, () => 1],
      c: new Date(0),
      d: { e: 'line\nbreak' },
      f: {},
      g: [],
    };
    assert.equal([...jsonPieces(odd, undefined, '')].join(''), JSON.stringify(odd, null, 2));
  });
});
