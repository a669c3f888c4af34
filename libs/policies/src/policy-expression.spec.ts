import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpressionContext, ExpressionError, parseExpression } from './policy-expression';

const context: ExpressionContext = {
  flow: { name: 'backend', tags: { team: 'payments', 'risk-level': 'high', tier: '2' } },
  artifact: { name: 'registry.example/backend:1.4', fingerprint: 'a'.repeat(64) },
};
const holds = (source: string, ctx: ExpressionContext = context) => parseExpression(source).evaluate(ctx);

describe('policy expressions', () => {
  it('compares the documented variables', () => {
    assert.equal(holds('${{ flow.name == "backend" }}'), true);
    assert.equal(holds('${{ flow.name != "backend" }}'), false);
    assert.equal(holds('${{ flow.tags.team == "payments" }}'), true);
    assert.equal(holds('${{ flow.tags["risk-level"] == "high" }}'), true);
    assert.equal(holds('${{ flow.tags.tier >= "2" and flow.tags.tier < "3" }}'), true);
    assert.equal(holds(`\${{ artifact.fingerprint == "${'a'.repeat(64)}" }}`), true);
  });

  it('combines with and, or, not, in, exists() and matches()', () => {
    assert.equal(holds('${{ flow.name in ["backend", "web"] }}'), true);
    assert.equal(holds('${{ "pay" in flow.tags.team }}'), true);
    assert.equal(holds('${{ not exists(flow.tags.owner) }}'), true);
    assert.equal(holds('${{ exists(flow.tags.team) and not (flow.name == "web") }}'), true);
    assert.equal(holds('${{ matches(artifact.name, "^registry\\\\.example/") or flow.name == "x" }}'), true);
    assert.equal(holds('${{ matches(artifact.name, "^docker.io/") }}'), false);
    assert.equal(holds('flow.name == "backend"'), true, 'the ${{ }} wrapper is optional');
  });

  it('answers false, not an error, when a variable is missing', () => {
    assert.equal(holds('${{ flow.tags.owner == "ann" }}'), false);
    assert.equal(holds('${{ flow.name == "backend" }}', { ...context, flow: null }), false);
    assert.equal(holds('${{ flow.tags.tier > 1 }}'), false, 'a string and a number do not compare');
  });

  it('refuses malformed expressions with the reason, and never runs code', () => {
    const refused = (source: string, reason: RegExp) =>
      assert.throws(
        () => parseExpression(source),
        (e: unknown) => e instanceof ExpressionError && reason.test(e.message),
      );
    refused('${{ flow.name == }}', /Expected expression/);
    refused('${{ flow.name === "x" }}', /unsupported operator|Expected/);
    refused('${{ flow.name && true }}', /unsupported operator '&&'/);
    refused('${{ process.exit(1) }}', /only exists\(\) and matches\(\)/);
    refused('${{ constructor.constructor("return 1")() }}', /only exists|unknown variable/);
    refused('${{ trail.name == "x" }}', /unknown variable 'trail.name'/);
    refused('${{ flow.owner == "x" }}', /unknown variable 'flow.owner'/);
    refused('${{ exists(flow.name, 1) }}', /takes 1 argument/);
    refused('${{ matches(flow.name, "(") }}', /invalid regular expression/);
    refused('${{ matches(flow.name, flow.name) }}', /string literal pattern/);
    refused('${{ flow.tags[flow.name] == "x" }}', /string in brackets/);
    refused('${{ matches(flow.name, "(a)\\\\1") }}', /not a supported regular expression \(RE2 syntax/);
    refused('${{ matches(flow.name, "x(?=y)") }}', /not a supported regular expression/);
  });

  it('matches on RE2: a pattern that backtracks exponentially in JavaScript answers at once', () => {
    const name = `${'a'.repeat(40)}!`;
    assert.equal(
      holds('${{ matches(flow.name, "^(a+)+$") }}', { ...context, flow: { name, tags: {} } }),
      false,
    );
    assert.equal(
      holds('${{ matches(flow.name, "^(a+)+!$") }}', { ...context, flow: { name, tags: {} } }),
      true,
    );
  });
});
