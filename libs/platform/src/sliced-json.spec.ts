import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { TimeSlice } from '#des/event-store';
import { jsonTextExcess } from './json-depth';
import { JsonTextRefused, parseJsonInSlices } from './sliced-json';

const LIMITS = { maxDepth: 100, maxKeys: 10_000, maxNodes: 100_000 };

/** JSON.parse's answer, or `malformed`, as the sliced parse is held to. */
function expected(text: string): unknown {
  try {
    return { value: JSON.parse(text.replace(/^\uFEFF/, '')) as unknown };
  } catch {
    return { refused: 'malformed' };
  }
}

async function sliced(text: string, pieceBytes: number, slice?: TimeSlice): Promise<unknown> {
  try {
    return { value: await parseJsonInSlices(Buffer.from(text), LIMITS, { pieceBytes, slice }) };
  } catch (error) {
    assert.ok(error instanceof JsonTextRefused, String(error));
    return { refused: error.excess };
  }
}

/** JSON text of `value` with white space of every kind between its tokens. */
const spaced = (value: unknown, space: string) =>
  JSON.stringify(value, null, space.length ? space : undefined) ?? 'null';

const keys = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '1', '0', 'a'));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    ),
    fc.array(tie('value'), { maxLength: 8 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 8 }),
  ),
})).value;

describe('JSON parsed in slices', () => {
  it('answers what JSON.parse answers, however small the pieces', async () => {
    await fc.assert(
      fc.asyncProperty(
        json,
        fc.constantFrom('', ' ', '\t', '\r\n '),
        fc.integer({ min: 1, max: 64 }),
        async (v, s, piece) => {
          const text = spaced(v, s);
          assert.deepEqual(await sliced(text, piece), expected(text));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses what JSON.parse refuses, and takes what it takes, after any one byte is changed', async () => {
    const bytes = fc.constantFrom(...'{}[],:" \\01-.eEtfnul\u00e9x'.split(''));
    await fc.assert(
      fc.asyncProperty(json, fc.nat(), bytes, fc.boolean(), async (v, at, byte, insert) => {
        const text = spaced(v, ' ');
        const i = at % (text.length + 1);
        const changed = text.slice(0, i) + byte + text.slice(insert ? i : i + 1);
        assert.deepEqual(await sliced(changed, 4), expected(changed));
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps __proto__ as an own member and the last of repeated keys, as JSON.parse does', async () => {
    const text = '{"__proto__": {"polluted": true}, "a": [1, 2, 3], "a": {"b": "x"}, "1": 0}';
    const value = (await parseJsonInSlices(Buffer.from(text), LIMITS, { pieceBytes: 4 })) as Record<
      string,
      unknown
    >;
    assert.deepEqual(value, JSON.parse(text));
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value), Object.keys(JSON.parse(text) as object));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('refuses past the shape limits as the text scan does (depth, keys, values)', async () => {
    const deep = '['.repeat(101) + ']'.repeat(101);
    const wide = `{${Array.from({ length: 10_001 }, (_, i) => `"k${i}":1`).join(',')}}`;
    const many = `[${'1,'.repeat(100_000)}1]`;
    for (const [text, excess] of [
      [deep, 'depth'],
      [wide, 'keys'],
      [many, 'nodes'],
    ] as const) {
      assert.equal(jsonTextExcess(Buffer.from(text)), excess);
      for (const piece of [8, 1 << 20]) assert.deepEqual(await sliced(text, piece), { refused: excess });
    }
    assert.deepEqual(
      await sliced('['.repeat(100) + ']'.repeat(100), 8),
      expected('['.repeat(100) + ']'.repeat(100)),
    );
  });

  it('takes a byte-order mark, and refuses an empty text or two values', async () => {
    assert.deepEqual(await sliced('\uFEFF{"a": [1]}', 2), { value: { a: [1] } });
    for (const text of ['', '   ', '{} {}', '1 2', '"a" "b"', '[1] x'])
      assert.deepEqual(await sliced(text, 2), { refused: 'malformed' }, text);
  });

  it('gives the event loop turns while it parses a large text, and none for a small one', async () => {
    const unit = { taskArn: 'é'.repeat(800), digests: { a: 'sha256:' + 'ab'.repeat(32) }, n: 1.5 };
    const text = JSON.stringify({ artifacts: new Array(3_000).fill(unit) });
    const turns = { count: 0 };
    const counting = new (class extends TimeSlice {
      override async turn(): Promise<void> {
        turns.count++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    assert.deepEqual(await sliced(text, 64 * 1024, counting), expected(text));
    assert.ok(turns.count > 100, `${turns.count} turns`);
    turns.count = 0;
    await sliced(JSON.stringify(unit), 64 * 1024, counting);
    assert.equal(turns.count, 0);
  });
});
