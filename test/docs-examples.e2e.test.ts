import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from './support/engines';
import { APPS, Child, startProcess, untilLive } from './support/processes';

/**
 * The shell examples of the README and the guides, run in order with bash against a fresh
 * embedded service (the real entry point, `npm start`'s process), as a newcomer would paste them.
 *
 * Conventions (described in docs/architecture.md, "Tests"):
 * - Every ```bash (or ```sh) block runs, in the order of DOCUMENTS and of each file, unless the
 *   line right before it is `<!-- not run: why -->`; those are documentation only and reported
 *   as skipped.
 * - `<!-- docs-test: restart NAME=value … -->` restarts the service (same data) with those
 *   variables, where a guide asks the reader to restart it so.
 * - A line `# → <status> [<JSON>] [prose]` after a command states the answer to the last request
 *   made before it: its HTTP status and, when a JSON value follows, the fields it shows (objects
 *   match when every field shown matches, arrays element by element; `"…"` is any value, a
 *   string ending in `…` a prefix).
 * - A block fails when a command fails (`set -eo pipefail`), when an answer differs from the one
 *   shown, or when a request is answered 4xx/5xx without a `# →` line saying so.
 * The blocks share the shell variables they set (KEY and BASE are set by the test) and one
 * working directory; `npm run cli -- …` runs the compiled CLI on the service's data directory.
 */
const ROOT = resolve(__dirname, '../..');
const DOCUMENTS = [
  'README.md',
  'docs/platform-engineers.md',
  'docs/auditors.md',
  'docs/api-conventions.md',
  'docs/operations.md',
  'docs/architecture.md',
  'docs/limits.md',
  'docs/deploy.md',
];
/** A bound on one block, so a hung example fails rather than stalls the run; no answer is timed. */
const BLOCK_TIMEOUT_MS = 60_000;

interface Expectation {
  line: number;
  status: number;
  json?: unknown;
}
interface Block {
  kind: 'block';
  file: string;
  line: number;
  code: string;
  expectations: Expectation[];
  notRun?: string;
}
interface Restart {
  kind: 'restart';
  file: string;
  line: number;
  env: Record<string, string>;
}
type Item = Block | Restart;

/** The longest prefix of `text` that is one JSON value (object, array or string), or undefined. */
function jsonPrefix(text: string): string | undefined {
  if (!/^[[{"]/.test(text)) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') {
        inString = false;
        if (depth === 0) return text.slice(0, i + 1);
      }
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (--depth === 0) return text.slice(0, i + 1);
    }
  }
  return undefined;
}

function parseExpectation(text: string, where: string, line: number): Expectation {
  const m = /^(\d{3})(?:\s+(.*))?$/.exec(text.trim());
  if (!m) throw new Error(`${where}: an answer line reads "# → <status> [JSON]", not "# → ${text}"`);
  const rest = m[2] ?? '';
  const json = jsonPrefix(rest);
  if (json === undefined && /^[[{"]/.test(rest)) throw new Error(`${where}: unterminated JSON in "${rest}"`);
  try {
    return { line, status: Number(m[1]), ...(json === undefined ? {} : { json: JSON.parse(json) }) };
  } catch (error) {
    throw new Error(`${where}: the answer shown is not JSON: ${json} (${(error as Error).message})`);
  }
}

/** The bash blocks, markers and directives of one document, in order. */
function parseDocument(file: string): Item[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const items: Item[] = [];
  let notRun: { reason: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i];
    const where = `${file}:${i + 1}`;
    const marker = /^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$/.exec(text);
    const restart = /^\s*<!--\s*docs-test:\s*restart\s+(.*?)\s*-->\s*$/.exec(text);
    const fence = /^(\s*)```\s*([\w-]*)\s*$/.exec(text);
    if (notRun && text.trim() !== '' && !(fence && ['bash', 'sh'].includes(fence[2])))
      throw new Error(`${file}:${notRun.line}: "not run" marks no bash block (the next line is not one)`);
    if (marker) notRun = { reason: marker[1], line: i + 1 };
    else if (restart) {
      const env: Record<string, string> = {};
      for (const pair of restart[1].split(/\s+/)) {
        const m = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(pair);
        if (!m) throw new Error(`${where}: a restart directive takes NAME=value pairs, not "${pair}"`);
        env[m[1]] = m[2];
      }
      items.push({ kind: 'restart', file, line: i + 1, env });
    } else if (fence) {
      const indent = fence[1];
      const start = i + 1;
      const body: string[] = [];
      for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) body.push(lines[i]);
      if (i >= lines.length) throw new Error(`${file}:${start}: a code block is never closed`);
      if (!['bash', 'sh'].includes(fence[2])) continue;
      const code: string[] = [];
      const expectations: Expectation[] = [];
      let heredoc: string | undefined;
      body.forEach((raw, k) => {
        const line = raw.startsWith(indent) ? raw.slice(indent.length) : raw;
        const lineNo = start + 1 + k;
        if (heredoc !== undefined) {
          if (line.trim() === heredoc) heredoc = undefined;
          code.push(line);
          return;
        }
        const answer = /^\s*#\s*→\s*(.*)$/.exec(line);
        if (answer) {
          expectations.push(parseExpectation(answer[1], `${file}:${lineNo}`, lineNo));
          code.push(`__docs_expect ${expectations.length - 1}`);
          return;
        }
        heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(line)?.[1];
        code.push(line);
      });
      items.push({
        kind: 'block',
        file,
        line: start,
        code: code.join('\n'),
        expectations,
        ...(notRun ? { notRun: notRun.reason } : {}),
      });
      notRun = undefined;
    }
  }
  if (notRun) throw new Error(`${file}:${notRun.line}: "not run" marks no bash block`);
  return items;
}

/** Why `actual` does not show what `expected` shows (empty: it does). */
function mismatches(expected: unknown, actual: unknown, path = 'body'): string[] {
  if (expected === '…') return actual === undefined ? [`${path} is missing`] : [];
  if (typeof expected === 'string' && expected.endsWith('…'))
    return typeof actual === 'string' && actual.startsWith(expected.slice(0, -1))
      ? []
      : [`${path} is ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path} is ${JSON.stringify(actual)}, not an array`];
    if (actual.length !== expected.length)
      return [`${path} has ${actual.length} elements, not ${expected.length}: ${JSON.stringify(actual)}`];
    return expected.flatMap((e, i) => mismatches(e, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path} is ${JSON.stringify(actual)}, not an object`];
    return Object.entries(expected).flatMap(([k, e]) =>
      mismatches(e, (actual as Record<string, unknown>)[k], `${path}.${k}`),
    );
  }
  return expected === actual ? [] : [`${path} is ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`];
}

/** Sourced before each block: the recording curl, the answer checks, `npm run cli`, the shared variables. */
const PRELUDE = String.raw`
__docs_calls="$DOCS_STATE/calls"
# curl as usual, its response headers and body kept for the answer checks.
curl() {
  local __docs_n
  __docs_n=$(( $(cat "$__docs_calls/count") + 1 ))
  echo "$__docs_n" > "$__docs_calls/count"
  command curl -D "$__docs_calls/$__docs_n.headers" "$@" | tee "$__docs_calls/$__docs_n.body"
  return "${'$'}{PIPESTATUS[0]}"
}
# A "# → …" line: the expectation's index and the request it is about.
__docs_expect() { echo "$1 $(cat "$__docs_calls/count")" >> "$DOCS_STATE/expects"; }
# npm run cli -- … is the compiled CLI (npm run would build the project first).
npm() {
  if [ "$1 $2" = "run cli" ]; then
    shift 2
    [ "$1" != -- ] || shift
    node "$DOCS_CLI" "$@"
  else
    echo "docs test: only 'npm run cli -- …' runs in an example; mark other blocks <!-- not run: why -->" >&2
    return 127
  fi
}
# The variables a block set, for the blocks after it.
__docs_save() {
  local __docs_names
  __docs_names=$(LC_ALL=C comm -13 <(printf '%s\n' "$__docs_baseline" | LC_ALL=C sort) <(compgen -v | LC_ALL=C sort) |
    grep -Ev '^(__docs|BASH|FUNCNAME|PIPESTATUS|GROUPS|OPTARG|OPTIND|COLUMNS|LINES|HISTCMD|RANDOM|SRANDOM|SECONDS|LINENO|EPOCH|_$)' || true)
  if [ -n "$__docs_names" ]; then declare -p $__docs_names > "$DOCS_STATE/vars.sh"; fi
}
`;

function blockScript(block: Block): string {
  return [
    '__docs_baseline=$(compgen -v)',
    '. "$DOCS_STATE/prelude.sh"',
    '[ ! -f "$DOCS_STATE/vars.sh" ] || . "$DOCS_STATE/vars.sh"',
    "trap '__docs_rc=$?; __docs_save; exit $__docs_rc' EXIT",
    'set -eo pipefail',
    `# ${block.file}:${block.line}`,
    block.code,
    '',
  ].join('\n');
}

const items = DOCUMENTS.flatMap(parseDocument);

describe('the examples of the README and the guides, run in order against a fresh embedded service', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'des-docs-data-'));
  const work = mkdtempSync(join(tmpdir(), 'des-docs-work-'));
  const state = join(work, '.docs-test');
  const groups: number[] = [];
  const serviceEnv: NodeJS.ProcessEnv = {
    DES_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // The embedded default, whatever the test runner's environment holds.
    DES_ORG: undefined,
    EVENT_STORE_URL: undefined,
    KURRENTDB_URL: undefined,
    MONGODB_URL: undefined,
    REDIS_URL: undefined,
  };
  let service: Child | undefined;
  let base = '';
  let key = '';
  let failed: string | undefined;
  const counts = { run: 0, requests: 0, answers: 0, restarts: 0 };

  before(async () => {
    mkdirSync(join(state, 'calls'), { recursive: true });
    writeFileSync(join(state, 'calls/count'), '0\n');
    writeFileSync(join(state, 'prelude.sh'), PRELUDE);
    serviceEnv.PORT = String(await freePort());
    base = `http://127.0.0.1:${serviceEnv.PORT}`;
    service = startProcess('api', serviceEnv);
    await untilLive(service, base);
    const printed = /Created organization 'demo' .*\n.*\n\n {4}(des_[A-Za-z0-9_-]{32})\n/.exec(
      service.output(),
    );
    assert.ok(printed, `the first start prints demo's admin key:\n${service.output()}`);
    key = printed[1];
  });

  after(async () => {
    await service?.stop();
    // Whatever an example left running in the background (a webhook receiver whose block failed).
    for (const group of groups) {
      try {
        process.kill(-group, 'SIGTERM');
      } catch {
        // The group has ended.
      }
    }
    const skipped = items.filter((i): i is Block => i.kind === 'block' && i.notRun !== undefined);
    console.log(
      `# docs examples: ${counts.run} blocks run (${counts.requests} requests, ${counts.answers} answers checked, ` +
        `${counts.restarts} restarts), ${skipped.length} not run:`,
    );
    for (const block of skipped) console.log(`#   ${block.file}:${block.line} not run: ${block.notRun}`);
    if (!failed) {
      rmSync(work, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    } else console.log(`# docs examples: the working directory is kept in ${work}`);
  });

  for (const item of items) {
    if (item.kind === 'restart') {
      const vars = Object.entries(item.env).map(([k, v]) => `${k}=${v}`);
      it(`${item.file}:${item.line}: the service restarted with ${vars.join(' ')}`, async (t) => {
        if (failed) return t.skip(`after ${failed} failed`);
        try {
          await service!.stop();
          Object.assign(serviceEnv, item.env);
          service = startProcess('api', serviceEnv);
          await untilLive(service, base);
          assert.doesNotMatch(service.output(), /des_[A-Za-z0-9_-]{32}/, 'a restart prints no new key');
          counts.restarts++;
        } catch (error) {
          failed = `${item.file}:${item.line}`;
          throw error;
        }
      });
      continue;
    }
    const hint = (item.code.split('\n').find((l) => l.trim() !== '') ?? '')
      .trim()
      .replace(/^#\s*/, '')
      .replace(/\s+/g, ' ');
    const title = `${item.file}:${item.line}: ${hint.length > 70 ? `${hint.slice(0, 69)}…` : hint}`;
    if (item.notRun !== undefined) {
      it(`${title} (not run: ${item.notRun})`, { skip: `not run: ${item.notRun}` }, () => undefined);
      continue;
    }
    it(title, async (t) => {
      if (failed) return t.skip(`after ${failed} failed`);
      try {
        await runBlock(item);
        counts.run++;
      } catch (error) {
        failed = title;
        throw error;
      }
    });
  }

  async function runBlock(block: Block): Promise<void> {
    const title = `${block.file}:${block.line}`;
    const firstCall = Number(readFileSync(join(state, 'calls/count'), 'utf8')) + 1;
    writeFileSync(join(state, 'expects'), '');
    const script = join(state, 'block.sh');
    writeFileSync(script, blockScript(block));
    // Its output goes to a file: a background process it started (a webhook receiver) may outlive it.
    const log = join(state, 'block.log');
    const out = openSync(log, 'w');
    const child = spawn('bash', [script], {
      cwd: work,
      detached: true,
      stdio: ['ignore', out, out],
      env: {
        ...process.env,
        ...serviceEnv,
        PORT: undefined,
        HOST: undefined,
        BASE: `${base}/api/v2`,
        KEY: key,
        DOCS_STATE: state,
        DOCS_CLI: join(APPS, 'cli/src/main.js'),
      },
    });
    closeSync(out);
    groups.push(child.pid!);
    const code = await new Promise<number | string>((done) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // It ended meanwhile.
        }
        done(`timed out after ${BLOCK_TIMEOUT_MS} ms`);
      }, BLOCK_TIMEOUT_MS);
      child.once('exit', (c, signal) => {
        clearTimeout(timer);
        done(c ?? String(signal));
      });
    });
    const output = readFileSync(log, 'utf8');
    const lastCall = Number(readFileSync(join(state, 'calls/count'), 'utf8'));
    counts.requests += lastCall - firstCall + 1;
    const read = (name: string) => {
      try {
        return readFileSync(join(state, 'calls', name), 'utf8');
      } catch {
        return ''; // curl never got an answer (it failed, and so did the block)
      }
    };
    const calls = (n: number) => {
      const statuses = [...read(`${n}.headers`).matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)];
      return {
        status: statuses.length ? Number(statuses[statuses.length - 1][1]) : 0,
        body: read(`${n}.body`),
      };
    };
    const problems: string[] = [];
    const checked = new Set<number>();
    const noted = readFileSync(join(state, 'expects'), 'utf8').trim().split('\n').filter(Boolean);
    for (const note of noted) {
      const [index, n] = note.split(' ').map(Number);
      const expectation = block.expectations[index];
      const where = `${block.file}:${expectation.line}`;
      if (n < firstCall) {
        problems.push(`${where}: the answer shown follows no request of this block`);
        continue;
      }
      checked.add(n);
      counts.answers++;
      const answer = calls(n);
      if (answer.status !== expectation.status)
        problems.push(
          `${where}: answered ${answer.status}, not ${expectation.status}: ${answer.body.slice(0, 500)}`,
        );
      else if (expectation.json !== undefined) {
        let body: unknown;
        try {
          body = JSON.parse(answer.body);
        } catch {
          problems.push(`${where}: the answer is not JSON: ${answer.body.slice(0, 500)}`);
          continue;
        }
        const wrong = mismatches(expectation.json, body);
        if (wrong.length) problems.push(`${where}: ${wrong.join('; ')}`);
      }
    }
    if (code === 0 && noted.length !== block.expectations.length)
      problems.push(`${title}: ${block.expectations.length} answers shown, ${noted.length} checked`);
    for (let n = firstCall; n <= lastCall; n++) {
      const { status, body } = calls(n);
      if (status >= 400 && !checked.has(n))
        problems.push(
          `${title}: a request was answered ${status} and no "# → ${status}" line says so: ${body.slice(0, 300)}`,
        );
    }
    assert.deepEqual(
      { exit: code, problems },
      { exit: 0, problems: [] },
      `${title}: the example failed; its output:\n${output.slice(-4000)}`,
    );
  }
});
