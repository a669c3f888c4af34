import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDocument } from 'yaml';
import { yamlShapeExcess } from './yaml-shape';

const LIMITS = { maxNodes: 2000, maxDepth: 64 };
const excess = (text: string) => yamlShapeExcess(text, LIMITS);

/** How deeply the parser nests the document's collections, walked without recursion. */
function parsedDepth(text: string): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[parseDocument(text).toJS(), 0]];
  while (pending.length) {
    const [value, depth] = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return deepest;
}

const blockMappings = (levels: number) =>
  Array.from({ length: levels }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' x\n';
const compactEntries = (levels: number) => `${'- '.repeat(levels)}x\n`;
const keyedEntries = (levels: number) =>
  Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- k${i}:`).join('\n') + ' x\n';
const sequencesUnderKeys = (levels: number) =>
  Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}k${i}:\n${'  '.repeat(i)}-`).join('\n') + ' x\n';
const mixed = (levels: number) => `${'- a: '.repeat(levels)}x\n`;

describe('YAML shape from the text', () => {
  it('passes ordinary documents, block scalars, quotes and comments as structure-free text', () => {
    const policy = [
      '_schema: https://kosli.com/schemas/policy/environment/v1',
      'artifacts:',
      '  provenance:',
      '    required: true # a comment with - - - - and [[[[',
      '  attestations:',
      '    - name: "a: [[[[ ]]]] - - -"',
      "      type: 'it''s [ - ? '",
      '      if: ${{ flow.name == "x" }}',
      'description: |',
      `  ${'- '.repeat(100)}`,
      `      ${'? '.repeat(100)}`,
      'list: [a, "]]]]", {b: c}, [d]]',
      '---',
      '...',
    ].join('\n');
    assert.equal(excess(policy), undefined);
  });

  for (const [name, shape, valid] of [
    ['indented mappings', blockMappings, true],
    ['compact sequences on one line (- - - x)', compactEntries, true],
    ['sequences of mappings', keyedEntries, true],
    ['sequences at their key’s indentation', sequencesUnderKeys, true],
    ['compact mappings in sequences (- a: - a: x, not YAML)', mixed, false],
  ] as const) {
    it(`counts ${name}: 20 levels pass, 1,000 are refused`, () => {
      if (valid) assert.ok(parsedDepth(shape(30)) >= 30, 'the shape nests as the test means');
      assert.equal(excess(shape(20)), undefined);
      assert.equal(excess(shape(1000)), 'depth');
    });
  }

  it('counts block and flow nesting together', () => {
    assert.equal(excess(`${'- '.repeat(40)}${'['.repeat(20)}${']'.repeat(20)}`), undefined);
    assert.equal(excess(`${'- '.repeat(40)}${'['.repeat(30)}${']'.repeat(30)}`), 'depth');
    assert.equal(excess(`${'['.repeat(65)}${']'.repeat(65)}`), 'depth');
  });

  it('does not let a quoted bracket or a comment close flow collections', () => {
    const hidden = (inner: string) => `${'['.repeat(40)}${inner}, ${'['.repeat(40)}x${']'.repeat(80)}\n`;
    assert.equal(excess(hidden(`"${']'.repeat(40)}"`)), 'depth');
    assert.equal(excess(hidden(`'${']'.repeat(40)}'`)), 'depth');
    assert.equal(excess(`${'['.repeat(40)} # ${']'.repeat(40)}\n${'['.repeat(40)}x`), 'depth');
    // a quote inside a plain scalar starts nothing
    assert.equal(excess(`${'['.repeat(40)}a ", ${'['.repeat(40)}x"`), 'depth');
  });

  it('reads a block scalar’s lines as text only below its parent', () => {
    // the lines after `|` less indented than the innermost entry end the scalar, and are structure again
    const escaping = `- - - - |\n  ${'- '.repeat(70)}x\n`;
    assert.equal(excess(escaping), 'depth');
  });

  it('refuses a complex key nested in another', () => {
    assert.equal(excess('? a\n: b\n? c\n: d\n'), undefined);
    assert.equal(excess(`${'? '.repeat(2)}x\n`), 'nested-complex-key');
    assert.equal(excess(`${'? '.repeat(400)}x\n`), 'nested-complex-key');
    assert.equal(excess('? - ? x\n'), 'nested-complex-key');
  });

  it('counts nodes as before: lines, items and keys', () => {
    const keys = Array.from({ length: 2500 }, (_, i) => `k${i}: ${i}`).join('\n');
    assert.equal(excess(keys), 'nodes');
    assert.equal(excess(`[${Array(2500).fill('a').join(',')}]`), 'nodes');
  });

  it('reads 256 KiB of any of these shapes in one pass (times printed)', () => {
    const big = 256 * 1024;
    const shapes = [
      '[]'.repeat(big / 2),
      '- '.repeat(big / 2),
      '"'.repeat(big),
      `${'a'.repeat(big)}`,
      `[${' '.repeat(big)}`,
      `k: ${'x '.repeat(big / 2)}`,
      `k: |\n${'  - - - - - - - - - -\n'.repeat(big / 24)}`,
      `# ${'#'.repeat(big)}`,
    ];
    for (const text of shapes) {
      const started = process.hrtime.bigint();
      yamlShapeExcess(text, LIMITS);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      console.log(`# ${JSON.stringify(text.slice(0, 6))}… (${text.length} chars) measured in ${ms.toFixed(1)} ms`);
    }
  });
});
