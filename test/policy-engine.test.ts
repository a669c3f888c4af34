import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { evaluatePolicy, OpaCompiler, PolicyError } from '../libs/policy-engine/src';

const cacheDir = mkdtempSync(join(tmpdir(), 'des-policy-cache-'));
const compiler = new OpaCompiler(cacheDir);
const trail = {
  name: 'main-1',
  compliance_status: { status: 'COMPLIANT' },
  attestations: { tests: { compliant: true } },
};

async function failure(run: () => Promise<unknown>): Promise<PolicyError> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof PolicyError, String(error));
    return error;
  }
  assert.fail('expected a policy failure');
}

describe('policy engine (OPA compiler + opa-wasm)', () => {
  it('evaluates allow and violations, with params as data.params', async () => {
    const policy = await compiler.compile({
      'policy.rego': `package policy
import rego.v1
default allow := false
allow if { count(violations) == 0 }
violations contains msg if {
  some t in input.trails
  t.compliance_status.status != "COMPLIANT"
  msg := sprintf("%s is %s", [t.name, t.compliance_status.status])
}
violations contains "too many trails" if { count(input.trails) > data.params.max_trails }
`,
    });
    assert.deepEqual(policy.entrypoints, ['policy/allow', 'policy/violations']);
    const ok = await evaluatePolicy(policy, { trails: [trail], trail }, { params: { max_trails: 5 } }, 5000);
    assert.deepEqual(ok, { allow: true, violations: [] });
    const bad = { ...trail, name: 'rc-2', compliance_status: { status: 'NON-COMPLIANT' } };
    const denied = await evaluatePolicy(
      policy,
      { trails: [trail, bad] },
      { params: { max_trails: 1 } },
      5000,
    );
    assert.deepEqual(denied, { allow: false, violations: ['rc-2 is NON-COMPLIANT', 'too many trails'] });
  });

  it('reads input.trail for a single trail; violations are optional', async () => {
    const policy = await compiler.compile({
      'policy.rego':
        'package policy\nimport rego.v1\ndefault allow := false\nallow if input.trail.attestations.tests.compliant\n',
    });
    assert.deepEqual(policy.entrypoints, ['policy/allow']);
    assert.deepEqual(await evaluatePolicy(policy, { trails: [trail], trail }, {}, 5000), {
      allow: true,
      violations: [],
    });
  });

  it('compiles several files with imports', async () => {
    const policy = await compiler.compile({
      'policy.rego':
        'package policy\nimport rego.v1\nimport data.lib.checks\ndefault allow := false\nallow if checks.all_compliant(input.trails)\n',
      'lib/checks.rego':
        'package lib.checks\nimport rego.v1\nall_compliant(trails) if { every t in trails { t.compliance_status.status == "COMPLIANT" } }\n',
    });
    assert.equal((await evaluatePolicy(policy, { trails: [trail] }, {}, 5000)).allow, true);
  });

  it('compiles a repeated policy once, in memory and on disk', async () => {
    const files = { 'p.rego': 'package policy\ndefault allow := true\n' };
    const fresh = new OpaCompiler(mkdtempSync(join(tmpdir(), 'des-policy-cache-')));
    await fresh.compile(files);
    await fresh.compile(files);
    assert.equal(fresh.compilations, 1);
    const before = compiler.compilations;
    await compiler.compile(files);
    const restarted = new OpaCompiler(cacheDir);
    await restarted.compile(files);
    assert.equal(restarted.compilations, 0, 'a new process finds it on disk');
    assert.equal(compiler.compilations, before + 1);
  });

  it('answers broken policies with policy_error and the compiler’s message and line', async () => {
    const syntax = await failure(() =>
      compiler.compile({ 'bad.rego': 'package policy\n\nallow if {\n  input.x ==\n}\n' }),
    );
    assert.equal(syntax.kind, 'policy_error');
    assert.match(syntax.message, /bad\.rego:\d+/);
    const noAllow = await failure(() => compiler.compile({ 'p.rego': 'package policy\nx := 1\n' }));
    assert.match(noAllow.message, /no `allow` rule/);
    // http.send compiles to a host builtin that opa-wasm does not provide: the evaluation refuses it.
    const network = await compiler.compile({
      'p.rego':
        'package policy\nimport rego.v1\nallow if http.send({"method": "GET", "url": "http://x"}).status_code == 200\n',
    });
    const refused = await failure(() => evaluatePolicy(network, {}, {}, 5000));
    assert.equal(refused.kind, 'policy_error');
    assert.match(refused.message, /http\.send/, refused.message);
    const escape = await failure(() =>
      compiler.compile({ '../evil.rego': 'package policy\nallow := true\n' }),
    );
    assert.match(escape.message, /leaves the policy/);
  });

  it('answers a non-boolean or undefined allow with policy_error', async () => {
    const text = await compiler.compile({ 'p.rego': 'package policy\nallow := "yes"\n' });
    assert.match((await failure(() => evaluatePolicy(text, {}, {}, 5000))).message, /must be a boolean/);
    const undef = await compiler.compile({
      'p.rego': 'package policy\nimport rego.v1\nallow if input.never\n',
    });
    assert.match((await failure(() => evaluatePolicy(undef, {}, {}, 5000))).message, /undefined/);
  });

  it('stops a policy that runs over its budget: timeout', async () => {
    const slow = await compiler.compile({
      'p.rego':
        'package policy\nimport rego.v1\ndefault allow := false\nallow if count([x | some x in numbers.range(1, 200000000); x % 7 == 3]) > 0\n',
    });
    const started = Date.now();
    const error = await failure(() => evaluatePolicy(slow, {}, {}, 500));
    assert.equal(error.kind, 'timeout');
    assert.ok(Date.now() - started < 5000, 'stopped promptly');
  });
});
