import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { ALL_SETTINGS, settingsTable } from '#des/platform';
import { freePort } from './support/engines';
import { modeEnv } from './support/app';
import { type Child, eventually, startProcess, untilLive } from './support/processes';

const ROOT = resolve(__dirname, '../..');

/** The rows of a Markdown table, each cell trimmed (prettier pads them). */
function tableRows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

/** The process's stdout as log records: every line must be JSON. */
function logRecords(child: Child): { level: number; msg: string; role: string }[] {
  return child
    .stdout()
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      try {
        return JSON.parse(line) as { level: number; msg: string; role: string };
      } catch {
        throw new Error(`a log line is not JSON: ${line}`);
      }
    });
}

describe('configuration: one definition, checked at start', () => {
  it("the docs' table is the one the definition produces", () => {
    const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const section = docs.slice(
      docs.indexOf('<!-- settings table'),
      docs.indexOf('<!-- end of settings table -->'),
    );
    assert.deepEqual(
      tableRows(section),
      tableRows(settingsTable(ALL_SETTINGS)),
      'docs/operations.md is stale: paste `npm run cli -- config table` between its markers',
    );
  });

  for (const app of ['api', 'worker', 'projector'] as const) {
    it(`${app}: wrong values stop the start with one line each, exit code 78, no stack`, async () => {
      const child = startProcess(app, {
        DES_DATA_DIR: mkdtempSync(join(tmpdir(), 'des-config-')),
        PORT: 'eighty',
        DES_PROJECTOR_BATCH_SIZE: '0',
        MONGODB_URL: 'http://reader:hunter2@db.example:27017/des',
        LOG_LEVEL: 'loud',
      });
      assert.deepEqual(await child.exited, { code: 78, signal: null });
      assert.equal(child.stdout(), '', 'nothing is logged before the settings are valid');
      assert.deepEqual(child.stderr().trim().split('\n').sort(), [
        "configuration error: DES_PROJECTOR_BATCH_SIZE='0' is below 1; expected an integer ≥ 1",
        "configuration error: LOG_LEVEL='loud' is not one of the accepted values; expected fatal, error, warn, info, debug, trace, silent",
        "configuration error: MONGODB_URL='http://db.example:27017/des' has another scheme or no host; expected a URL starting mongodb:// or mongodb+srv://",
        "configuration error: PORT='eighty' is not a whole number; expected an integer from 0 to 65535",
      ]);
    });
  }
});

describe('start-up errors: one line naming the cause', () => {
  const children: Child[] = [];
  const start = (...args: Parameters<typeof startProcess>) => {
    const child = startProcess(...args);
    children.push(child);
    return child;
  };
  after(async () => {
    for (const c of children) await c.stop();
  });

  it('a data directory that cannot be written: exit 73 naming it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'des-dir-')), 'a-file');
    writeFileSync(file, '');
    for (const app of ['api', 'worker'] as const) {
      const child = start(app, { DES_DATA_DIR: join(file, 'data') });
      assert.deepEqual(await child.exited, { code: 73, signal: null });
      assert.equal(
        child.stderr(),
        `cannot start: data directory ${join(file, 'data')} (DES_DATA_DIR) is not writable: ENOTDIR: not a directory, mkdir '${join(file, 'data')}'\n`,
      );
    }
  });

  it('a port in use: exit 1 naming the port', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as { port: number }).port;
    try {
      const env = await modeEnv('embedded', { PORT: String(port), HOST: '127.0.0.1' });
      const api = start('api', env);
      assert.deepEqual(await api.exited, { code: 1, signal: null });
      assert.match(
        api.stderr(),
        new RegExp(
          `^cannot start: the API port ${port} on 127\\.0\\.0\\.1 is in use by another process \\(EADDRINUSE\\)\\n$`,
          'm',
        ),
      );
      assert.doesNotMatch(api.stderr(), /\n\s+at /, 'no stack trace');
      const worker = start('worker', { ...env, DES_OPS_PORT: String(port) });
      assert.deepEqual(await worker.exited, { code: 1, signal: null });
      assert.match(
        worker.stderr(),
        /cannot start: the worker's ops port \d+ on 127\.0\.0\.1 is in use by another process/,
      );
    } finally {
      taken.close();
    }
  });

  it('unreachable MongoDB, Redis and KurrentDB: retried and said, with the address and no credentials, every few seconds', async () => {
    const [mongoPort, redisPort, kurrentPort, port] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const env = await modeEnv('embedded', {
      PORT: String(port),
      KURRENTDB_URL: `kurrentdb://admin:hunter4@127.0.0.1:${kurrentPort}?tls=false`,
      LOG_LEVEL: 'info',
      MONGODB_URL: `mongodb://reader:hunter2@127.0.0.1:${mongoPort}/des`,
      REDIS_URL: `redis://:hunter3@127.0.0.1:${redisPort}`,
      DES_CONNECT_TIMEOUT_MS: '300',
    });
    const api = start('api', env, ['--role=api']);
    await untilLive(api, `http://127.0.0.1:${port}`);
    const retried = (engine: string, address: string) =>
      eventually(
        async () => logRecords(api).filter((r) => r.msg.startsWith(`${engine} at ${address} unreachable:`)),
        (lines) => lines.length >= 3,
      );
    const mongo = await retried('MongoDB', `mongodb://127.0.0.1:${mongoPort}/des`);
    const redis = await retried('Redis', `redis://127.0.0.1:${redisPort}`);
    await retried('KurrentDB', `kurrentdb://127.0.0.1:${kurrentPort}?tls=false`);
    assert.match(mongo[0].msg, /unreachable: .+; try 2 in 0\.5 s$/);
    assert.match(mongo[2].msg, /; try 4 in 2 s$/);
    assert.match(redis[0].msg, /ECONNREFUSED|Connection is closed|timed out|no answer/);
    assert.doesNotMatch(api.output(), /hunter[234]/, 'credentials are never printed');
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    assert.equal(ready.status, 503);
    assert.deepEqual(Object.keys(((await ready.json()) as { errors: object }).errors).sort(), [
      'event_store (kurrentdb)',
      'jobs (bullmq)',
      'read_store (mongodb)',
    ]);
  });
});

describe('logs: JSON in every process, at LOG_LEVEL; the first key never in them', () => {
  const children: Child[] = [];
  after(async () => {
    for (const c of children) await c.stop();
  });

  it('the first start shows the admin key on stderr and keeps it in a 0600 file, never in the log stream', async () => {
    const port = await freePort();
    const env = await modeEnv('embedded', { PORT: String(port), LOG_LEVEL: 'info' });
    const api = startProcess('api', env);
    children.push(api);
    await untilLive(api, `http://127.0.0.1:${port}`);
    const keyFile = join(env.DES_DATA_DIR!, 'initial-admin-key');
    const key = readFileSync(keyFile, 'utf8').trim();
    assert.match(key, /^des_[A-Za-z0-9_-]{32}$/);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.ok(api.stderr().includes(key), 'shown on the terminal');
    assert.ok(!api.stdout().includes(key), 'never in the JSON log stream');
    const records = logRecords(api);
    assert.ok(records.every((r) => r.role === 'all' && typeof r.level === 'number'));
    assert.ok(records.some((r) => r.msg.includes(`its API key is in ${keyFile}`)));
    const authed = await fetch(`http://127.0.0.1:${port}/api/v2/environments/demo`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    assert.equal(authed.status, 200);
  });

  it('worker and projector: JSON lines at LOG_LEVEL, probes and metrics on their ops port', async () => {
    const env = await modeEnv('server', { LOG_LEVEL: 'info' });
    const ports = { worker: await freePort(), projector: await freePort() };
    for (const role of ['worker', 'projector'] as const) {
      const child = startProcess(role, { ...env, DES_OPS_PORT: String(ports[role]) });
      children.push(child);
      const base = `http://127.0.0.1:${ports[role]}`;
      await untilLive(child, base);
      const ready = await eventually(
        () => fetch(`${base}/health/ready`).then(async (r) => ({ status: r.status, body: await r.text() })),
        (r) => r.status === 200,
      );
      assert.match(ready.body, /"status":"ok"/);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      for (const name of [
        'des_projector_lag_events',
        'des_projector_lag_seconds',
        'des_queue_jobs',
        'des_job_wait_seconds',
        'des_notification_deliveries_total',
        'des_ledger_integration_delay_seconds',
        'des_process_cpu_seconds_total',
      ])
        assert.match(metrics, new RegExp(`^# TYPE ${name} `, 'm'), `${role} exports ${name}`);
      const records = logRecords(child);
      assert.ok(records.some((r) => r.msg === `${role} running`));
      assert.ok(records.every((r) => r.role === role));
      if (role === 'projector') assert.match(metrics, /^des_projector_checkpoint_age_seconds \d/m);
      assert.match(metrics, /^des_projector_lag_events 0$/m);

      // LOG_LEVEL=warn: nothing at info, from the start to the stop.
      const quietPort = await freePort();
      const quiet = startProcess(role, { ...env, LOG_LEVEL: 'warn', DES_OPS_PORT: String(quietPort) });
      children.push(quiet);
      await untilLive(quiet, `http://127.0.0.1:${quietPort}`);
      await eventually(
        () => fetch(`http://127.0.0.1:${quietPort}/health/ready`).then((r) => r.status),
        (status) => status === 200,
      );
      quiet.process.kill('SIGTERM');
      assert.deepEqual(await quiet.exited, { code: 0, signal: null }, quiet.output());
      assert.ok(
        logRecords(quiet).every((r) => r.level >= 40),
        `only warnings and errors at LOG_LEVEL=warn: ${quiet.stdout()}`,
      );
    }
  });
});
