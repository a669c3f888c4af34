#!/usr/bin/env node
// `npm test`: compiles the project (tsc, tests included), starts the real
// engines once (Redis; a MongoDB-wire server: MONGODB_URL, mongod, or FerretDB
// built by the setup script, on SQLite, or on a throwaway PostgreSQL cluster with
// DES_TEST_FERRETDB_BACKEND=postgresql), runs every test file with node's test runner,
// stops the engines and exits with the runner's status.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileForTests } from './compile.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist-test');
// `--unit` (`npm run test:unit`): the specs beside the code only, without the engines (they need none).
const unit = process.argv.includes('--unit');
// `--hostile` (`npm run hostile`): the hostile-tenant harness (ADR 0042), both modes by default. Not in
// `npm test` until it passes there every time (ADR 0042).
const hostile = process.argv.includes('--hostile');
const only = process.argv.slice(2).filter((a) => a !== '--unit' && a !== '--hostile');

/** `#des/<lib>` imports resolve to dist-test under the des-test condition (package.json "imports"); child processes inherit it. */
function withTestBuild(options = '') {
  return `${options} --conditions=des-test`.trim();
}

compileForTests(root);

function testFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...testFiles(path));
    else if ((hostile ? /\.harness\.js$/ : /\.(spec|test)\.js$/).test(name)) found.push(path);
  }
  return found;
}
let files = testFiles(out).sort();
if (unit) files = files.filter((f) => f.endsWith('.spec.js'));
if (only.length) files = files.filter((f) => only.some((o) => relative(out, f).includes(o)));
// With no file named, node --test would look for tests everywhere (third-party sources included).
if (files.length === 0) {
  console.error(`no test file matches ${only.join(', ')}`);
  process.exit(1);
}

/** A file that measures latency, loop delay or memory says so (`// des-test: alone`, ADR 0050): it runs with nothing beside it. */
function measuresTime(file) {
  return /^\/\/ des-test: alone\b/m.test(readFileSync(file, 'utf8'));
}

/** One list of each file's time from the groups' lists, slowest first, with each group's wall time. */
function mergeTimes(lists, walls, target) {
  const rows = lists
    .filter((list) => existsSync(list))
    .flatMap((list) => readFileSync(list, 'utf8').split('\n').slice(1))
    .filter(Boolean)
    .sort((a, b) => parseFloat(b) - parseFloat(a));
  const total = rows.reduce((sum, row) => sum + parseFloat(row), 0);
  const wall = walls.map((w) => `${w.label}: ${(w.ms / 60_000).toFixed(1)} min`).join('; ');
  writeFileSync(
    target,
    `${(total / 60).toFixed(1)} min of tests in ${rows.length} files (wall: ${wall})\n${rows.join('\n')}\n`,
  );
}

const { startRedis, startMongo } = await import(join(out, 'test/support/engines.js'));
const engines = [];
try {
  const urls = {};
  if (!unit) {
    const redis = await startRedis();
    engines.push(redis);
    const mongo = await startMongo();
    engines.push(mongo);
    console.log(`# engines: ${redis.description}; ${mongo.description}`);
    console.log(
      `# KurrentDB: ${process.env.KURRENTDB_URL ? process.env.KURRENTDB_URL : 'not configured (KURRENTDB_URL unset): its contract suite is reported as skipped'}`,
    );
    Object.assign(urls, { TEST_REDIS_URL: redis.url, TEST_MONGODB_URL: mongo.url });
  }
  const env = {
    ...process.env,
    ...urls,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    NODE_OPTIONS: withTestBuild(process.env.NODE_OPTIONS),
  };
  // A whole run writes each file's time, slowest first, for the test-time goal (under 15 minutes);
  // a subset's run leaves the last whole run's list as it was.
  const whole = !unit && !only.length;
  const timesFile = join(out, 'test-file-times.txt');
  const runFiles = (group, concurrency, times) =>
    new Promise((resolve) => {
      const fileTimes = times
        ? [
            `--test-reporter=${join(root, 'scripts/file-times-reporter.mjs')}`,
            `--test-reporter-destination=${times}`,
          ]
        : [];
      const child = spawn(
        process.execPath,
        [
          '--enable-source-maps',
          '--expose-gc',
          '--test',
          `--test-concurrency=${concurrency}`,
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          ...fileTimes,
          ...group,
        ],
        { cwd: root, env, stdio: 'inherit' },
      );
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    });
  // Files that measure latency, loop delay or memory run alone, after the rest; the rest run
  // DES_TEST_CONCURRENCY at a time (default 2): they wait on conditions, never on the clock (ADR 0050).
  const alone = files.filter(measuresTime);
  const shared = files.filter((f) => !alone.includes(f));
  const concurrency = Math.max(1, Number(process.env.DES_TEST_CONCURRENCY ?? 2));
  const groups = [
    { files: shared, concurrency, times: `${timesFile}.shared`, why: '' },
    { files: alone, concurrency: 1, times: `${timesFile}.alone`, why: ' (they measure time: alone)' },
  ].filter((g) => g.files.length);
  let code = 0;
  const walls = [];
  for (const group of groups) {
    const label = `${group.files.length} files, ${group.concurrency} at a time`;
    if (groups.length > 1) console.log(`# ${label}${group.why}`);
    const started = Date.now();
    const status = await runFiles(group.files, group.concurrency, whole ? group.times : undefined);
    walls.push({ label, ms: Date.now() - started });
    if (status !== 0) code = status;
  }
  if (whole)
    mergeTimes(
      groups.map((g) => g.times),
      walls,
      timesFile,
    );
  process.exitCode = code;
  if (whole) console.log(`# each file's time, slowest first: ${relative(root, timesFile)}`);
} finally {
  for (const engine of engines.reverse()) await engine.stop();
}
