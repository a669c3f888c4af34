// des-test: alone (it measures another organization's latency or the event loop's delay: nothing may run beside it)
import assert from 'node:assert/strict';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import RE2 from 're2';
import { isAlias, isMap, isScalar, isSeq, parseDocument, visit } from 'yaml';
import { CustomEvaluator } from '#des/attestation-types';
import { parseTenantYaml, YAML_LIMITS, YamlRefusal } from '#des/platform';
import { parseExpression, readPolicy } from '#des/policies';
import { modeEnv, startApp, TestApp } from './support/app';
import { BOUNDS } from './support/noisy-neighbour';

/**
 * Tenants' programs, patterns and documents stay within their bounds, as a
 * property (issue 27; docs/adr/0001-tenant-programs-bounded.md): generated
 * regular expressions, jq programs and YAML documents are either refused at
 * upload naming their field or accepted, evaluating them always settles, and
 * the event loop is never held beyond the noisy-neighbour harness's bound.
 * The real app's worker pool, jq-wasm and RE2 run them.
 */
const RUNS = {
  regexes: Number(process.env.DES_PROPERTY_REGEX_RUNS ?? 200),
  jq: Number(process.env.DES_PROPERTY_JQ_RUNS ?? 120),
  yaml: Number(process.env.DES_PROPERTY_YAML_RUNS ?? 300),
};
/**
 * Only a hang guard: a run that never ends would stop the whole test run, so
 * fast-check fails it (and shrinks it) after this long instead.
 */
const HANG_MS = 30_000;

/**
 * Watches the event loop's delay while the service works (`during`), like the
 * noisy-neighbour harness; the test's own checks (generating inputs, the
 * oracles) run between, unwatched.
 */
function watchEventLoop(): {
  during<T>(work: () => T | Promise<T>): Promise<T>;
  stop(): { p99Ms: number; maxMs: number };
} {
  const loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  return {
    async during(work) {
      loop.enable();
      const sampled = loop.count;
      try {
        return await work();
      } finally {
        // Until the monitor has taken a sample after the work, so a synchronous stall is recorded.
        while (loop.count === sampled) await new Promise((resolve) => setImmediate(resolve));
        loop.disable();
      }
    },
    stop() {
      loop.disable();
      return { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 };
    },
  };
}

function assertEventLoopHeld(what: string, delay: { p99Ms: number; maxMs: number }): void {
  console.log(
    `# property (${what}): event loop p99 ${delay.p99Ms.toFixed(1)} / max ${delay.maxMs.toFixed(1)} ms`,
  );
  assert.ok(
    delay.p99Ms <= BOUNDS.eventLoopP99Ms,
    `${what}: event loop delay p99 ${delay.p99Ms.toFixed(1)} ms (bound ${BOUNDS.eventLoopP99Ms} ms)`,
  );
}

// ── Regular expressions ─────────────────────────────────────────────────────

/** Patterns known to backtrack catastrophically on a backtracking engine. */
const CATASTROPHIC = [
  '^(a+)+$',
  '(a|a)*$',
  '^(a|aa)+$',
  '^(\\w+\\s?)*$',
  '(.*a){12}',
  '(a*)*b',
  '^(([a-z])+.)+[A-Z]([a-z])+$',
  '(x+x+)+y',
];

const ATOMS = [
  'a',
  'b',
  'x',
  '.',
  '\\d',
  '\\w',
  '\\s',
  '[ab]',
  '[^a]',
  '[a-z]',
  '\\b',
  '^',
  '$',
  '\\1',
  '\\2',
  '\\k<n>',
  '(?<n>a)',
  '\\p{L}',
  'a{1001}',
  '(',
  ']',
  '\\',
];

const regex = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...ATOMS),
    fc.tuple(fc.constantFrom('(', '(?:'), tie('node')).map(([open, inner]) => `${open}${inner})`),
    fc
      .tuple(tie('node'), fc.constantFrom('+', '*', '?', '{2,5}', '{3}', '{0,}', '+?', '*+', '{1000}'))
      .map(([inner, q]) => `(${inner})${q}`),
    fc.tuple(tie('node'), tie('node')).map(([a, b]) => `${a}|${b}`),
    fc.array(tie('node'), { minLength: 2, maxLength: 4 }).map((parts) => parts.join('')),
    fc
      .tuple(fc.constantFrom('(?=', '(?!', '(?<=', '(?<!'), tie('node'))
      .map(([look, inner]) => `${look}${inner})`),
  ),
})).node;

const pattern = fc.oneof(
  fc.constantFrom(...CATASTROPHIC),
  regex.filter((p) => p.length <= 200),
);

/** Strings, and long runs built to make a backtracking engine explore every split. */
const subject = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'x', '!', ' ', '0', 'Z'), maxLength: 60 }),
  fc
    .tuple(
      fc.constantFrom('a', 'aa', 'ab', 'a ', 'x', 'xx'),
      fc.integer({ min: 1, max: 5000 }),
      fc.constantFrom('', '!', 'b', 'y', '\n'),
    )
    .map(([unit, n, tail]) => unit.repeat(n) + tail),
);

const compiles = (make: () => unknown): boolean => {
  try {
    make();
    return true;
  } catch {
    return false;
  }
};

/** A policy whose one attestation rule applies where `matches(artifact.name, pattern)`; JSON is YAML. */
function policyMatching(source: string): string {
  const literal = source.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return JSON.stringify({
    _schema: 'https://kosli.com/schemas/policy/environment/v1',
    artifacts: {
      attestations: [{ name: 'tests', type: 'junit', if: `\${{ matches(artifact.name, "${literal}") }}` }],
    },
  });
}

// ── jq programs ─────────────────────────────────────────────────────────────

const big = fc.constantFrom('0', '3', '1000', '1000000', '1000000000');

const jq = fc.letrec<{ program: string }>((tie) => ({
  program: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(
      '.',
      '.a',
      '.items',
      '.items[]?',
      '.[]?',
      '1',
      '"s"',
      'null',
      'true',
      'empty',
      '{}',
      '[]',
      'length',
      'keys?',
      '[paths]',
      '[..] | length',
      'tostring',
      'tojson',
      'to_entries?',
      'getpath(["a", "b"])',
      'def f: f; f',
      'def f: ., f; [limit(100000000; f)] | length',
      '[recurse] | length',
      '.[' /* compile error */,
      ')(',
      'def',
      'error("no")',
      'input',
      'test("(a+)+$")?',
      '[splits("a")?] | length',
    ),
    fc.tuple(tie('program'), tie('program')).map(([a, b]) => `${a} | ${b}`),
    fc.tuple(tie('program'), tie('program')).map(([a, b]) => `${a}, ${b}`),
    fc.tuple(tie('program'), tie('program')).map(([a, b]) => `(${a}) // (${b})`),
    fc.tuple(tie('program'), tie('program')).map(([a, b]) => `(${a}) + (${b})`),
    fc
      .tuple(tie('program'), tie('program'), tie('program'))
      .map(([a, b, c]) => `if ${a} then ${b} else ${c} end`),
    tie('program').map((a) => `[${a}]`),
    tie('program').map((a) => `try (${a})`),
    tie('program').map((a) => `select(${a})`),
    tie('program').map((a) => `map(${a})?`),
    tie('program').map((a) => `first(${a})`),
    tie('program').map((a) => `[repeat(${a})] | length`),
    fc.tuple(big, tie('program')).map(([n, a]) => `[limit(${n}; repeat(${a}))] | length`),
    big.map((n) => `[range(${n})] | length`),
    big.map((n) => `reduce range(0; ${n}) as $i (0; . + $i)`),
    big.map((n) => `[range(${n}) | tostring] | join(",") | length`),
    big.map((n) => `"ab" * ${n} | length`),
    big.map((n) => `0 | until(. > ${n}; . + 1)`),
  ),
})).program;

const jqData = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 8 }),
  fc.integer({ min: 0, max: 5000 }).map((n) => ({
    a: { b: 'a'.repeat(n) + '!' },
    items: Array.from({ length: Math.min(n, 2000) }, (_, i) => ({ i, name: `n${i}` })),
  })),
  fc.integer({ min: 1, max: 5000 }).map((n) => 'a'.repeat(n) + '!'),
);

// ── YAML documents ──────────────────────────────────────────────────────────

const count = (n: number) => fc.integer({ min: 1, max: n });

const yamlDocument: fc.Arbitrary<string | Buffer> = fc.oneof(
  // Deep flow nesting.
  fc.tuple(count(200), fc.constantFrom('[', '{a: ')).map(([d, open]) => {
    const close = open === '[' ? ']' : '}';
    return `v: ${open.repeat(d)}x${close.repeat(d)}\n`;
  }),
  // Many keys, block and flow (JSON too), sometimes repeated.
  fc
    .tuple(count(3000), fc.integer({ min: 1, max: 4000 }), fc.constantFrom('block', 'flow', 'pairs', 'json'))
    .map(([n, distinct, style]) => {
      const keys = Array.from({ length: n }, (_, i) => `k${i % distinct}`);
      if (style === 'block') return keys.map((k, i) => `${k}: ${i}\n`).join('');
      if (style === 'flow') return `{${keys.map((k, i) => `${k}: ${i}`).join(', ')}}`;
      if (style === 'pairs') return `[${keys.map((k, i) => `${k}: ${i}`).join(', ')}]`;
      return `{${keys.map((k, i) => `"${k}":${i}`).join(',')}}`;
    }),
  // Anchors and aliases, billion-laughs shapes among them.
  fc.tuple(count(10), count(12)).map(([levels, width]) => {
    const lines = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let l = 1; l <= levels; l++)
      lines.push(`l${l}: &l${l} [${Array.from({ length: width }, () => `*l${l - 1}`).join(', ')}]`);
    return `${lines.join('\n')}\n`;
  }),
  fc.tuple(count(400), fc.constantFrom('scalar', 'map')).map(([n, shape]) => {
    const anchor = shape === 'scalar' ? 'a: &a x' : 'a: &a {p: 1, q: [1, 2]}';
    return `${anchor}\nl:\n${Array.from({ length: n }, () => '  - *a\n').join('')}`;
  }),
  fc.tuple(count(30), count(120)).map(([anchors, each]) => {
    const defined = Array.from({ length: anchors }, (_, a) => `a${a}: &a${a} [v${a}, w]\n`).join('');
    const used = Array.from({ length: anchors * each }, (_, i) => `*a${i % anchors}`).join(', ');
    return `${defined}l: [${used}]\n`;
  }),
  // Long sequences, block and flow.
  fc
    .tuple(count(5000), fc.boolean())
    .map(([n, block]) =>
      block ? Array.from({ length: n }, (_, i) => `- ${i}\n`).join('') : `[${'x,'.repeat(n)}x]`,
    ),
  // Large scalars, plain and block.
  fc
    .tuple(fc.integer({ min: 1, max: 300_000 }), fc.boolean())
    .map(([n, plain]) => (plain ? `v: ${'x'.repeat(n)}\n` : `v: |\n  ${'y'.repeat(n)}\n`)),
  // Random bytes, and random YAML-ish text.
  fc.uint8Array({ maxLength: 4000 }).map((bytes) => Buffer.from(bytes)),
  fc.string({
    unit: fc.constantFrom(
      '- ',
      ': ',
      '? ',
      '\n',
      '  ',
      '[',
      ']',
      '{',
      '}',
      ',',
      '&a ',
      '*a',
      'k',
      'v',
      '"',
      "'",
      '|',
      '>',
      '#',
      '!!str ',
      '<<: ',
      ':',
      '---\n',
      '%YAML 1.2\n',
    ),
    maxLength: 400,
  }),
);

/** Nodes (scalars, collections, aliases) and aliases of a document as parsed. */
function nodesOf(text: string): { nodes: number; aliases: number } {
  let nodes = 0;
  let aliases = 0;
  visit(parseDocument(text, { uniqueKeys: false }), (_key, node) => {
    if (isAlias(node)) aliases++;
    if (isAlias(node) || isScalar(node) || isMap(node) || isSeq(node)) nodes++;
  });
  return { nodes, aliases };
}

/** Values in the document's JS value with aliases expanded, counted up to `cap`. */
function expandedSize(value: unknown, cap: number): number {
  let size = 0;
  const pending = [value];
  while (pending.length && size <= cap) {
    const v = pending.pop();
    size++;
    if (v instanceof Map) for (const [k, x] of v) pending.push(k, x);
    else if (Array.isArray(v)) pending.push(...(v as unknown[]));
    else if (v !== null && typeof v === 'object') pending.push(...Object.values(v));
  }
  return size;
}

describe('property: tenant programs, patterns and documents stay within their bounds', () => {
  let t: TestApp;
  let evaluator: CustomEvaluator;
  let seq = 0;

  before(async () => {
    t = await startApp({ mode: 'embedded', env: await modeEnv('embedded') });
    evaluator = t.app.get(CustomEvaluator);
    console.log(`# property: ${RUNS.regexes} regexes, ${RUNS.jq} jq programs, ${RUNS.yaml} YAML documents`);
  });
  after(() => t?.close());

  const createType = (schema: object, rules: string[]) =>
    t.http
      .post(`/api/v2/custom-attestation-types/${t.org}`)
      .send({ name: `prop-${++seq}`, schema, jq_rules: rules });

  it('a regular expression is refused at upload naming its field (RE2 cannot take it) or accepted, and matching it always returns', async () => {
    const watch = watchEventLoop();
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        pattern,
        fc.array(subject, { minLength: 1, maxLength: 3 }),
        async (source, subjects) => {
          const re2 = compiles(() => new RE2(source, 'u'));

          // A custom type's schema pattern.
          const schema = { type: 'object', properties: { v: { type: 'string', pattern: source } } };
          const created = await watch.during(() => createType(schema, []));
          if (re2) assert.equal(created.status, 201, JSON.stringify(created.body));
          else {
            refused++;
            assert.equal(created.status, 400);
            assert.deepEqual(Object.keys(created.body.errors), ['schema.properties.v.pattern']);
            assert.match(
              created.body.errors['schema.properties.v.pattern'],
              /not a supported regular expression/,
            );
          }
          if (re2)
            for (const v of subjects) {
              const verdict = await watch.during(() => evaluator.evaluate(t.org, schema, [], { v }));
              const matched = new RE2(source, 'u').test(v);
              assert.deepEqual(
                verdict.schema_errors.length === 0,
                matched,
                `${source} on ${v.slice(0, 40)}…`,
              );
            }

          // A policy's matches() pattern.
          const field = 'artifacts.attestations[0].if';
          const policyText = policyMatching(source);
          const read = await watch.during(() => readPolicy(policyText, YAML_LIMITS));
          const usable = re2 && compiles(() => new RegExp(source)) && compiles(() => new RE2(source));
          if (usable) assert.ok('policy' in read, JSON.stringify(read));
          else {
            assert.ok('errors' in read, `${source} accepted`);
            assert.deepEqual(Object.keys(read.errors), [field]);
            assert.match(read.errors[field], /matches\(\): /);
            return;
          }
          const expression = parseExpression(read.policy.artifacts!.attestations![0].if!);
          for (const name of subjects) {
            const context = { flow: null, artifact: { name, fingerprint: 'f'.repeat(64) } };
            const matched = await watch.during(() => expression.evaluate(context));
            assert.equal(matched, new RE2(source).test(name));
          }
        },
      ),
      { numRuns: RUNS.regexes, timeout: HANG_MS },
    );
    console.log(`# property (regexes): ${refused} of ${RUNS.regexes} refused`);
    assertEventLoopHeld('regexes', watch.stop());
  });

  it('a jq program is refused at type creation naming its rule or accepted, and evaluating it always settles within its budget', async () => {
    const watch = watchEventLoop();
    const seen = { refused: 0, results: 0, timeouts: 0, errors: 0 };
    await fc.assert(
      fc.asyncProperty(
        jq.filter((p) => p.length <= 4096),
        jqData,
        async (rule, data) => {
          const exitCode = process.exitCode;
          const created = await watch.during(() => createType({}, [rule]));
          if (created.status !== 201) {
            seen.refused++;
            assert.equal(created.status, 400, JSON.stringify(created.body));
            assert.deepEqual(Object.keys(created.body.errors), ['jq_rules[0]']);
            assert.match(
              created.body.errors['jq_rules[0]'],
              /compile error|syntax error|^timeout: the rule ran over its budget|^memory: the rule ran out of memory/,
            );
          } else {
            const verdict = await watch.during(() => evaluator.evaluate(t.org, {}, [rule], data));
            const [result] = verdict.rule_results;
            assert.equal(result.rule, rule);
            if (result.error === undefined) seen.results++;
            else {
              assert.equal(typeof result.error, 'string');
              assert.equal(result.result, null);
              if (/^(timeout|memory): /.test(result.error)) seen.timeouts++;
              else seen.errors++;
            }
          }
          assert.equal(process.exitCode, exitCode);
          const trivial = await watch.during(() =>
            evaluator.evaluate(t.org, {}, ['.ok == true'], { ok: true }),
          );
          assert.equal(trivial.rule_results[0].result, true, 'the pool answers afterwards');
        },
      ),
      { numRuns: RUNS.jq, timeout: HANG_MS },
    );
    console.log(
      `# property (jq): ${seen.refused} refused at creation; evaluated: ${seen.results} results, ` +
        `${seen.timeouts} over budget or memory, ${seen.errors} jq errors`,
    );
    assertEventLoopHeld('jq programs', watch.stop());
  });

  it('a YAML document is parsed or refused (YamlRefusal only), and one accepted is within the limits', async () => {
    const watch = watchEventLoop();
    const seen = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(yamlDocument, async (document) => {
        let value: unknown;
        try {
          value = await watch.during(() => parseTenantYaml(document));
        } catch (error) {
          assert.ok(error instanceof YamlRefusal, `not a YamlRefusal: ${String(error)}`);
          assert.ok(error.message.length > 0);
          seen.refused++;
          return;
        }
        seen.accepted++;
        const text = typeof document === 'string' ? document : document.toString('utf8');
        const { nodes, aliases } = nodesOf(text);
        assert.ok(nodes <= YAML_LIMITS.maxNodes, `accepted with ${nodes} nodes`);
        assert.ok(aliases <= YAML_LIMITS.maxAliases, `accepted with ${aliases} aliases`);
        const cap = YAML_LIMITS.maxNodes * YAML_LIMITS.maxAliases;
        assert.ok(expandedSize(value, cap) <= cap, 'accepted with its aliases expanding past the limits');
      }),
      { numRuns: RUNS.yaml, timeout: HANG_MS },
    );
    console.log(`# property (YAML): ${seen.accepted} accepted, ${seen.refused} refused`);
    assertEventLoopHeld('YAML documents', watch.stop());
  });
});
