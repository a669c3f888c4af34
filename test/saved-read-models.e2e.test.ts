import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import request from 'supertest';
import './support/answers-match-the-document';
import { freePort } from './support/engines';
import { Child, eventually, startProcess } from './support/processes';
import { comparable } from './support/time-travel';

const LISTENING = /on http:\/\/127\.0\.0\.1:\d+\/api\/v2/;
/** What a start with saving on always logs: the saved read models loaded, or why they were rebuilt. */
const OUTCOME = /read models (loaded|rebuilt)/;
const pod = (n: number) => ({
  podName: `web-${n}`,
  namespace: 'prod',
  creationTimestamp: 1_790_000_000 + n,
  digests: { [`registry.local/web:${n}`]: `sha256:${n.toString(16).padStart(64, '0')}` },
});

const started: Child[] = [];
// A failed assertion must not leave a service running (its pipes would keep the test process alive).
after(() => started.forEach((c) => c.process.kill('SIGKILL')));

/** The embedded service as `npm start` runs it, on its own data directory. */
async function service(dataDir: string, extra: NodeJS.ProcessEnv = {}) {
  const port = await freePort();
  const child = startProcess('api', {
    DES_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    DES_ORG: 'acme',
    LOG_LEVEL: 'info',
    ...extra,
  });
  started.push(child);
  // The log is written asynchronously: the start's read-model line may come after the listening line.
  const saving = extra.DES_READ_MODELS_SAVE_MS !== '0';
  const output = await eventually(
    async () => child.output(),
    (o) => LISTENING.test(o) && (!saving || OUTCOME.test(o)),
    60_000,
  );
  return { child, output, base: `http://127.0.0.1:${port}` };
}

async function stopped(child: Child, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (signal === 'SIGKILL') {
    child.process.kill('SIGKILL');
    await child.exited;
  } else await child.stop();
}

/** What the API answers about the environment: the read models it serves. */
async function reads(base: string, key: string) {
  const auth = { Authorization: `Bearer ${key}` };
  const env = await request(base).get('/api/v2/environments/acme/prod').set(auth);
  const snapshots = await request(base).get('/api/v2/environments/acme/prod/snapshots').set(auth);
  const accounts = await request(base).get('/api/v2/service-accounts/acme').set(auth);
  assert.equal(env.status, 200, JSON.stringify(env.body));
  // The environment's html_url names the port this start listens on: the rest must be the same.
  return { env: comparable(env.body), snapshots: snapshots.body, accounts: accounts.body };
}

describe('embedded read models are saved and loaded across restarts', () => {
  it('a restart loads them (no rebuild) and catches up; a damaged, stale or foreign file means a rebuild', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'des-saved-'));
    // First start: nothing saved yet.
    let s = await service(dataDir);
    assert.match(s.output, /read models rebuilt from the log: no saved read models/);
    const key = s.output.match(/des_[A-Za-z0-9_-]{32}/)![0];
    const auth = { Authorization: `Bearer ${key}` };
    assert.equal(
      (await request(s.base).put('/api/v2/environments/acme').set(auth).send({ name: 'prod', type: 'K8S' }))
        .status,
      201,
    );
    for (let n = 1; n <= 3; n++) {
      const res = await request(s.base)
        .put('/api/v2/environments/acme/prod/report/K8S')
        .set(auth)
        .send({ artifacts: [pod(n)] });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const expected = await reads(s.base, key);
    await stopped(s.child);

    // A clean restart loads what the shutdown saved.
    s = await service(dataDir);
    assert.match(s.output, /read models loaded: \d+ documents up to log position \d+/);
    assert.doesNotMatch(s.output, /read models rebuilt/);
    assert.deepEqual(await reads(s.base, key), expected);

    // Written after the last save, then killed: the next start loads the older file and catches up.
    const res = await request(s.base)
      .put('/api/v2/environments/acme/prod/report/K8S')
      .set(auth)
      .send({ artifacts: [pod(4)] });
    assert.equal(res.status, 201);
    const afterKill = await reads(s.base, key);
    assert.notDeepEqual(afterKill, expected, 'the fourth report shows');
    await stopped(s.child, 'SIGKILL');
    s = await service(dataDir);
    assert.match(s.output, /read models loaded/);
    assert.deepEqual(await reads(s.base, key), afterKill, 'events after the saved position are caught up');
    await stopped(s.child);

    // A damaged file: rebuilt, and the reads are the same.
    const file = join(dataDir, 'read-models.bin');
    const bytes = readFileSync(file);
    bytes[Math.floor(bytes.length / 3)] ^= 0xff;
    writeFileSync(file, bytes);
    s = await service(dataDir);
    assert.match(s.output, /read models rebuilt from the log: the saved read models are damaged/);
    assert.deepEqual(await reads(s.base, key), afterKill);
    await stopped(s.child);

    // Another data directory's file beside a different log: rebuilt from this log, not served.
    const other = mkdtempSync(join(tmpdir(), 'des-saved-other-'));
    s = await service(other);
    await stopped(s.child);
    copyFileSync(file, join(other, 'read-models.bin'));
    s = await service(other);
    assert.match(
      s.output,
      /read models rebuilt from the log: the saved read models \(up to position \d+\) do not match the event log/,
    );
    const otherKey = s.output.match(/des_[A-Za-z0-9_-]{32}/)?.[0];
    assert.equal(otherKey, undefined, 'the organization was created at the first start, not again');
    const env = await request(s.base).get('/api/v2/environments/acme/prod').set(auth);
    assert.equal(env.status, 401, 'the first directory’s key and environment are not served from its file');
    await stopped(s.child);
  });

  it('DES_READ_MODELS_SAVE_MS=0 saves nothing and rebuilds at every start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'des-saved-off-'));
    let s = await service(dataDir, { DES_READ_MODELS_SAVE_MS: '0' });
    await stopped(s.child);
    s = await service(dataDir, { DES_READ_MODELS_SAVE_MS: '0' });
    assert.doesNotMatch(s.output, /read models loaded/);
    await stopped(s.child);
    assert.throws(() => readFileSync(join(dataDir, 'read-models.bin')), /ENOENT/);
  });
});
