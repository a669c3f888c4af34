import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { STORED_YAML, YamlParsing, YamlRefusal } from '#des/platform';

/**
 * The YAML threads (ADR 0038): whatever shape the text measurement misses,
 * a parse that overflows its stack, runs over its time or its heap fails
 * that document alone with a 400 naming the budget, and the pool goes on.
 * STORED_YAML skips the text measurement, so the parser meets the bombs.
 */
const NESTED_SEQUENCES = `${'- '.repeat(1000)}x\n`;
/** Deep enough to overflow a thread's larger stack too. */
const DEEPER_SEQUENCES = `${'- '.repeat(10_000)}x\n`;
/** Within no limit but its size: seconds of parse, and more heap than 16 MiB. */
const MANY_KEYS = Array.from({ length: 300_000 }, (_, i) => `k${i}: ${i}`).join('\n');

const refusalOf = async (parsing: Promise<unknown>): Promise<YamlRefusal> => {
  try {
    await parsing;
  } catch (error) {
    assert.ok(error instanceof YamlRefusal, `not a YamlRefusal: ${String(error)}`);
    return error;
  }
  return assert.fail('the document was accepted');
};

describe('YAML parsed on its threads', () => {
  // A budget no parse here comes near but the one meant to run over it, however busy the machine.
  const pool = new YamlParsing({ threads: 1, budgetMs: 60_000, heapMb: 64, nice: 0 });
  after(() => pool.close());

  it('the hazard is real: two such parses on one isolate abort the process (in a child)', () => {
    const script = `const { parseDocument } = require('yaml');
      for (let i = 0; i < 3; i++) parseDocument(${JSON.stringify(NESTED_SEQUENCES)});`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.signal, 'SIGABRT', `status ${child.status}: ${child.stderr.slice(0, 300)}`);
    assert.match(child.stderr, /RegExpCompiler Allocation failed/);
  });

  it('parses an ordinary document', async () => {
    assert.deepEqual(await pool.parse('a: [1, {b: c}]\n'), { a: [1, { b: 'c' }] });
  });

  it('a stack overflow fails that document with 400, and retires the thread: ten in a row leave the process up', async () => {
    for (let i = 0; i < 10; i++) {
      const refused = await refusalOf(pool.parse(DEEPER_SEQUENCES, STORED_YAML));
      assert.equal(refused.status, 400);
      assert.match(refused.message, /nests too deeply/);
    }
    assert.deepEqual(await pool.parse('k: v'), { k: 'v' });
  });

  it('a parse over its time budget fails with 400 naming the budget, and the next is served', async () => {
    const hasty = new YamlParsing({ threads: 1, budgetMs: 100, heapMb: 256, nice: 0 });
    try {
      const refused = await refusalOf(hasty.parse(MANY_KEYS, STORED_YAML));
      assert.equal(refused.status, 400);
      assert.match(refused.message, /took more than the 100 ms/);
      // A new thread takes the next parse (on a busy machine even that may run over 100 ms: either answer shows the pool going on).
      const next: unknown = await hasty.parse('k: v').catch((error: Error) => error.message);
      assert.ok(typeof next === 'object' || /took more than/.test(String(next)), String(next));
    } finally {
      await hasty.close();
    }
  });

  it('a parse over its heap fails with 400 naming the ceiling', async () => {
    const small = new YamlParsing({ threads: 1, budgetMs: 60_000, heapMb: 16, nice: 0 });
    try {
      const refused = await refusalOf(small.parse(MANY_KEYS, STORED_YAML));
      assert.equal(refused.status, 400);
      assert.match(refused.message, /needed more than the 16 MiB/);
      assert.deepEqual(await small.parse('k: v'), { k: 'v' });
    } finally {
      await small.close();
    }
  });

  it('the text measurement still refuses first, on the event loop', async () => {
    const refused = await refusalOf(pool.parse(NESTED_SEQUENCES));
    assert.match(refused.message, /nests more than 64 collections/);
  });
});
