import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { CustomEvaluator } from './custom-evaluation';

const evaluator = new CustomEvaluator({
  ruleBudgetMs: 500,
  ruleMemoryMb: 64,
  ruleThreads: 2,
  schemaBudgetMs: 2000,
  programNice: 9,
});
after(() => evaluator.close());

/** A thread's nice value (Linux: field 19 of /proc/self/task/<tid>/stat). */
const niceOf = (tid: string | number) =>
  Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
/** The nice value of each of this process's threads. */
const threadNiceValues = () => readdirSync('/proc/self/task').map(niceOf);

describe('custom attestation evaluation (jq)', () => {
  it('names a rule that does not compile, and leaves the process exit code as it was', async () => {
    const before = process.exitCode;
    const problems = await evaluator.problems('acme', {}, ['.[', '.lines >= 80']);
    assert.match(problems['jq_rules[0]'] ?? '', /compile error|syntax error/);
    assert.equal(process.exitCode, before);
    assert.equal(problems['jq_rules[1]'], undefined);
  });

  it('reports a rule that fails on the data without changing the exit code', async () => {
    const before = process.exitCode;
    const verdict = await evaluator.evaluate('acme', { type: 'object' }, ['.lines >= 80', 'error("no")'], {
      lines: 90,
    });
    assert.equal(verdict.compliant, false);
    assert.equal(verdict.rule_results[0].result, true);
    assert.ok(verdict.rule_results[1].error);
    assert.equal(process.exitCode, before);
  });

  it('refuses a rule that runs forever or past its budget on {}, naming it, and keeps serving', async () => {
    const problems = await evaluator.problems('acme', {}, [
      'true',
      'def f: f; f',
      '[limit(100000000; repeat(1))] | length > 0',
    ]);
    assert.equal(problems['jq_rules[0]'], undefined);
    assert.match(problems['jq_rules[1]'], /^timeout: the rule ran over its budget of 500 ms/);
    assert.match(problems['jq_rules[2]'], /^(timeout|memory): /);
    const verdict = await evaluator.evaluate('acme', {}, ['.ok'], { ok: true });
    assert.equal(verdict.compliant, true);
  });

  it('gives a rule over its budget at attestation time a timeout error, and the attestation is not compliant', async () => {
    const verdict = await evaluator.evaluate('acme', {}, ['.n | until(. < 0; . + 1)', '.n == 1'], { n: 1 });
    assert.equal(verdict.compliant, false);
    assert.deepEqual(verdict.rule_results[0], {
      rule: '.n | until(. < 0; . + 1)',
      result: null,
      error: 'timeout: the rule ran over its budget of 500 ms',
    });
    assert.equal(verdict.rule_results[1].result, true);
  });

  it('stops a rule at its memory ceiling, and replaces its thread', async () => {
    const small = new CustomEvaluator({
      ruleBudgetMs: 20_000,
      ruleMemoryMb: 24,
      ruleThreads: 1,
      schemaBudgetMs: 20_000,
      programNice: 0,
    });
    try {
      const verdict = await small.evaluate('acme', {}, ['[range(100000000)] | length', '.ok'], { ok: true });
      assert.equal(verdict.compliant, false);
      assert.match(
        verdict.rule_results[0].error ?? '',
        /^memory: the rule ran out of memory \(its ceiling is 24 MiB/,
      );
      assert.equal(verdict.rule_results[1].result, true);
    } finally {
      await small.close();
    }
  });

  it('reads large data in time (jq-wasm fed its input a byte at a time, copying the rest each time)', async () => {
    const data = { items: Array.from({ length: 5000 }, (_, i) => ({ name: `item${i}`, value: i })) };
    const verdict = await evaluator.evaluate('acme', { type: 'object' }, ['.items | length == 5000'], data);
    assert.deepEqual(verdict.rule_results[0], { rule: '.items | length == 5000', result: true });
  });
});

describe('custom type schemas (ajv on RE2)', () => {
  it('runs rules on threads at a lower CPU priority (nice) than the thread serving requests', async () => {
    const verdict = await evaluator.evaluate('acme', {}, ['.n == 1'], { n: 1 });
    assert.equal(verdict.compliant, true);
    const values = threadNiceValues();
    assert.ok(values.includes(9), `threads' nice values: ${values.join(' ')}`);
    assert.equal(niceOf(process.pid), 0, 'the main thread keeps its priority');
  });

  it('matches a catastrophic pattern in linear time', async () => {
    const schema = { type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } };
    assert.deepEqual(await evaluator.problems('acme', schema, []), {});
    const verdict = await evaluator.evaluate('acme', schema, [], { v: `${'a'.repeat(27)}!` });
    assert.equal(verdict.compliant, false);
    assert.match(verdict.schema_errors[0], /^\/v must match pattern/);
  });

  it('refuses patterns RE2 cannot take, naming each field', async () => {
    const problems = await evaluator.problems(
      'acme',
      { properties: { v: { pattern: '(a)\\1' } }, patternProperties: { '^x(?=y)': { type: 'string' } } },
      [],
    );
    assert.deepEqual(Object.keys(problems).sort(), [
      'schema.patternProperties["^x(?=y)"]',
      'schema.properties.v.pattern',
    ]);
    assert.match(problems['schema.properties.v.pattern'], /not a supported regular expression/);
  });

  it("compiles one tenant's $id apart from another's", async () => {
    assert.deepEqual(await evaluator.problems('a', { $id: 'https://x/s', type: 'object' }, []), {});
    assert.deepEqual(await evaluator.problems('b', { $id: 'https://x/s', type: 'string' }, []), {});
    const verdict = await evaluator.evaluate('b', { $id: 'https://x/s', type: 'string' }, [], 'text');
    assert.deepEqual(verdict.schema_errors, []);
  });

  it('refuses a schema or rules over their size limits before compiling them', async () => {
    const wide = { properties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, {}])) };
    assert.match((await evaluator.problems('acme', wide, [])).schema, /more than 2000 nodes/);
    assert.match((await evaluator.problems('acme', {}, ['.'.repeat(5000)]))['jq_rules[0]'], /at most 4096/);
  });
});
