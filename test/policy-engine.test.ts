import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OpaCompiler, PolicyError, PolicyEvaluator } from '#des/policy-engine';
import { MongoReadStore } from '#des/read-store';
import { mongoEngine, uniqueName } from './support/engines';

const cacheDir = mkdtempSync(join(tmpdir(), 'des-policy-cache-'));
const compiler = new OpaCompiler(cacheDir);
const evaluator = new PolicyEvaluator({ budgetMs: 5000, threads: 2 });
after(() => evaluator.close());

/** A thread's nice value (Linux: field 19 of /proc/<pid>/task/<tid>/stat). */
const niceOf = (tid: string | number, pid: string | number = 'self') =>
  Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
/** The nice value of each of this process's threads. */
const threadNiceValues = () => readdirSync('/proc/self/task').map((tid) => niceOf(tid));
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
    const ok = await evaluator.evaluate(policy, { trails: [trail], trail }, { params: { max_trails: 5 } });
    assert.deepEqual(ok, { allow: true, violations: [] });
    const bad = { ...trail, name: 'rc-2', compliance_status: { status: 'NON-COMPLIANT' } };
    const denied = await evaluator.evaluate(policy, { trails: [trail, bad] }, { params: { max_trails: 1 } });
    assert.deepEqual(denied, { allow: false, violations: ['rc-2 is NON-COMPLIANT', 'too many trails'] });
  });

  it('reads input.trail for a single trail; violations are optional', async () => {
    const policy = await compiler.compile({
      'policy.rego':
        'package policy\nimport rego.v1\ndefault allow := false\nallow if input.trail.attestations.tests.compliant\n',
    });
    assert.deepEqual(await evaluator.evaluate(policy, { trails: [trail], trail }, {}), {
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
    assert.equal((await evaluator.evaluate(policy, { trails: [trail] }, {})).allow, true);
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

  it('server mode: a policy one worker compiled is found by another with an empty disk (GridFS)', async () => {
    const reads = await new MongoReadStore({
      url: (await mongoEngine()).url,
      database: uniqueName('policy'),
    }).connect();
    try {
      const shared = reads.blobs('policy_cache');
      const files = { 'shared.rego': 'package policy\ndefault allow := false\n' };
      const first = new OpaCompiler(
        mkdtempSync(join(tmpdir(), 'des-policy-a-')),
        undefined,
        undefined,
        shared,
      );
      const second = new OpaCompiler(
        mkdtempSync(join(tmpdir(), 'des-policy-b-')),
        undefined,
        undefined,
        shared,
      );
      const compiled = await first.compile(files);
      const found = await second.compile(files);
      assert.equal(first.compilations, 1);
      assert.equal(second.compilations, 0, 'the second worker compiled nothing');
      assert.deepEqual(found.wasm, compiled.wasm);
      assert.equal((await evaluator.evaluate(found, { trails: [] }, {})).allow, false);
    } finally {
      await reads.close();
    }
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
    const refused = await failure(() => evaluator.evaluate(network, {}, {}));
    assert.equal(refused.kind, 'policy_error');
    assert.match(refused.message, /http\.send/, refused.message);
    const escape = await failure(() =>
      compiler.compile({ '../evil.rego': 'package policy\nallow := true\n' }),
    );
    assert.match(escape.message, /leaves the policy/);
  });

  it('answers a non-boolean or undefined allow with policy_error', async () => {
    const text = await compiler.compile({ 'p.rego': 'package policy\nallow := "yes"\n' });
    assert.match((await failure(() => evaluator.evaluate(text, {}, {}))).message, /must be a boolean/);
    const undef = await compiler.compile({
      'p.rego': 'package policy\nimport rego.v1\nallow if input.never\n',
    });
    assert.match((await failure(() => evaluator.evaluate(undef, {}, {}))).message, /undefined/);
  });

  it('runs policies in a process, on a thread at a lower CPU priority (nice) than the thread serving requests', async () => {
    const niced = new PolicyEvaluator({ budgetMs: 5000, threads: 1, nice: 7 });
    try {
      const policy = await compiler.compile({ 'p.rego': 'package policy\ndefault allow := true\n' });
      assert.equal((await niced.evaluate(policy, {}, {})).allow, true);
      const [slot] = (niced as unknown as { slots: Set<{ child: { pid: number } }> }).slots;
      const evaluating = readdirSync(`/proc/${slot.child.pid}/task`).map((tid) => niceOf(tid, slot.child.pid));
      assert.ok(evaluating.includes(7), `the evaluating thread is niced: ${evaluating.join(' ')}`);
      assert.ok(threadNiceValues().every((v) => v === 0), 'no thread of the service is');
    } finally {
      await niced.close();
    }
  });

  it('stops a policy that runs over its budget: timeout', async () => {
    const slow = await compiler.compile({
      'p.rego':
        'package policy\nimport rego.v1\ndefault allow := false\nallow if count([x | some x in numbers.range(1, 200000000); x % 7 == 3]) > 0\n',
    });
    const strict = new PolicyEvaluator({ budgetMs: 500, threads: 1 });
    try {
      const error = await failure(() => strict.evaluate(slow, {}, {}));
      assert.equal(error.kind, 'timeout');
      // The stopped thread is replaced: the next evaluation runs normally.
      const quick = await compiler.compile({ 'p.rego': 'package policy\ndefault allow := true\n' });
      assert.deepEqual(await strict.evaluate(quick, {}, {}), { allow: true, violations: [] });
    } finally {
      await strict.close();
    }
  });

  it('forgets an idle process that died, and answers with a new one', async () => {
    const pool = new PolicyEvaluator({ budgetMs: 5000, threads: 1 });
    try {
      const quick = await compiler.compile({ 'p.rego': 'package policy\ndefault allow := true\n' });
      assert.equal((await pool.evaluate(quick, {}, {})).allow, true);
      const [slot] = (pool as unknown as { slots: Set<{ child: ChildProcess }> }).slots;
      const exited = new Promise((r) => slot.child.once('exit', r));
      slot.child.ref(); // the pool holds no idle process's events open: this test waits for one
      slot.child.kill('SIGKILL');
      await exited;
      await new Promise((r) => setImmediate(r));
      assert.equal((await pool.evaluate(quick, {}, {})).allow, true);
    } finally {
      await pool.close();
    }
  });

  it('queues more callers than threads, each answered with its own input', async () => {
    const policy = await compiler.compile({
      'p.rego':
        'package policy\nimport rego.v1\ndefault allow := false\nallow if input.n % 2 == data.params.parity\n',
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => evaluator.evaluate(policy, { n }, { params: { parity: 0 } })),
    );
    assert.deepEqual(
      answers.map((a) => a.allow),
      Array.from({ length: 20 }, (_, n) => n % 2 === 0),
    );
  });

  it('stops a policy that allocates without bound at its memory ceiling: policy_error', async () => {
    const hungry = await compiler.compile({
      'p.rego':
        'package policy\nimport rego.v1\ndefault allow := false\nallow if count(concat("", [sprintf("%d-padding-padding-padding", [x]) | some x in numbers.range(1, 50000000)])) > 0\n',
    });
    const small = new PolicyEvaluator({ budgetMs: 60_000, threads: 1, memoryMb: 32 });
    try {
      const error = await failure(() => small.evaluate(hungry, {}, {}));
      assert.equal(error.kind, 'policy_error', error.message);
      assert.match(error.message, /ran out of memory \(its ceiling is 32 MiB\)/);
      const quick = await compiler.compile({ 'p.rego': 'package policy\ndefault allow := true\n' });
      assert.equal((await small.evaluate(quick, {}, {})).allow, true, 'the pool still answers');
    } finally {
      await small.close();
    }
  });

  it('fails an evaluation whose process runs over its heap budget, alone, and replaces the process', async () => {
    // Data of 64 MiB: twice the process's heap once it is read there, in one allocation (which
    // ends a whole process: a worker thread's resourceLimits would have taken the service down).
    const quick = await compiler.compile({ 'p.rego': 'package policy\ndefault allow := true\n' });
    const small = new PolicyEvaluator({ budgetMs: 60_000, threads: 1, heapMb: 32 });
    try {
      const error = await failure(() => small.evaluate(quick, {}, { params: { blob: 'x'.repeat(64 << 20) } }));
      assert.equal(error.kind, 'policy_error', error.message);
      assert.equal(error.message, 'the policy ran over its memory budget of 32 MiB');
      assert.equal((await small.evaluate(quick, {}, {})).allow, true, 'the pool still answers');
    } finally {
      await small.close();
    }
  });

  it('evaluates an input given as its JSON bytes', async () => {
    const policy = await compiler.compile({
      'p.rego': 'package policy\nimport rego.v1\ndefault allow := false\nallow if input.trail.name == "main-1"\n',
    });
    const input = new TextEncoder().encode(JSON.stringify({ trail }));
    assert.deepEqual(await evaluator.evaluateBytes(policy, input, {}), { allow: true, violations: [] });
    // A view into a larger buffer: only its bytes are the input.
    const framed = Buffer.from(`xx${JSON.stringify({ trail })}yy`);
    const view = new Uint8Array(framed.buffer, framed.byteOffset + 2, framed.length - 4);
    assert.deepEqual(await evaluator.evaluateBytes(policy, view, {}), { allow: true, violations: [] });
  });
});
