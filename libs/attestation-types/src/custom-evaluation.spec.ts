import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateCustom, jqRuleProblem } from './custom-evaluation';

describe('custom attestation evaluation (jq)', () => {
  it('names a rule that does not compile, and leaves the process exit code as it was', async () => {
    const before = process.exitCode;
    const problem = await jqRuleProblem('.[');
    assert.match(problem ?? '', /compile error|syntax error/);
    assert.equal(process.exitCode, before);
    assert.equal(await jqRuleProblem('.lines >= 80'), undefined);
  });

  it('reports a rule that fails on the data without changing the exit code', async () => {
    const before = process.exitCode;
    const verdict = await evaluateCustom({ type: 'object' }, ['.lines >= 80', 'error("no")'], { lines: 90 });
    assert.equal(verdict.compliant, false);
    assert.equal(verdict.rule_results[0].result, true);
    assert.ok(verdict.rule_results[1].error);
    assert.equal(process.exitCode, before);
  });
});
