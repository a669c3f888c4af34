import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from './support/engines';
import { type Child, eventually, startProcess, untilLive } from './support/processes';

const ROOT_ONLY = process.getuid?.() === 0 ? false : 'mounting a small file system of its own needs root';

/**
 * The embedded service with its data directory on a small file system of
 * the test's own (a 24 MB tmpfs), filled until a write fails: the write
 * answers 507 and records nothing, the process lives on, reads go on,
 * readiness names the data directory, and once space returns the same
 * process serves writes again by itself; nothing acknowledged is lost.
 */
describe('storage faults: a full disk under the embedded service', { skip: ROOT_ONLY }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'des-full-'));
  const children: Child[] = [];
  after(async () => {
    for (const c of children) await c.stop();
    try {
      execFileSync('umount', [dir]);
    } catch {
      // not mounted
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 507, stays up and ready-fails naming the directory, recovers when space returns, loses nothing', async (t) => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir]);
    const data = join(dir, 'data');
    const ballast = join(dir, 'ballast');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      DES_DATA_DIR: data,
      PORT: String(port),
      LOG_LEVEL: 'info',
      DES_READ_MODELS_SAVE_MS: '300',
      DES_ORG_WRITES_PER_SECOND: '10000',
      DES_ORG_WRITE_BURST: '10000',
    };
    let api = startProcess('api', env);
    children.push(api);
    await untilLive(api, base);
    const key = readFileSync(join(data, 'initial-admin-key'), 'utf8').trim();
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const send = (method: string, path: string, body?: object) =>
      fetch(`${base}/api/v2${path}`, { method, headers, body: body && JSON.stringify(body) }).then(
        async (r) => ({
          status: r.status,
          headers: r.headers,
          body: (await r.json().catch(() => null)) as {
            message?: string;
            errors?: Record<string, string>;
          } | null,
        }),
      );
    assert.equal((await send('PUT', '/flows/demo', { name: 'disk' })).status, 201);
    assert.equal((await send('PUT', '/trails/demo/disk', { name: 'big' })).status, 201);
    // What is left of the file system, but 4 MB, is taken by a ballast file the test removes later.
    const free = Number(execFileSync('df', ['--output=avail', '-B1', dir]).toString().split('\n')[1]);
    writeFileSync(ballast, Buffer.alloc(Math.max(0, free - 4 * 1024 * 1024)));

    const blob = 'x'.repeat(200_000);
    const attest = (name: string) =>
      send('POST', '/attestations/demo/disk/trail/big/generic', {
        attestation_name: name,
        user_data: { blob },
      });
    const acknowledged: string[] = [];
    let refused: Awaited<ReturnType<typeof send>> | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await attest(`a${i}`);
      if (res.status === 201) acknowledged.push(`a${i}`);
      else refused = res;
    }
    assert.ok(refused, 'the disk filled up');
    assert.equal(refused.status, 507, JSON.stringify(refused.body));
    assert.match(
      refused.body!.message!,
      /^Insufficient storage: the service's disk is full or failing \(no space left/,
    );
    assert.ok(refused.headers.get('retry-after'));
    t.diagnostic(`${acknowledged.length} attestations acknowledged before the disk was full`);

    // Whatever the service freed after its failed write (a draft it removed) is taken too: the disk stays full.
    const filler = join(dir, 'filler');
    try {
      for (;;) appendFileSync(filler, Buffer.alloc(64 * 1024));
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
    }
    // The process lives on: more writes are refused the same way (one may still fit in space SQLite's
    // write-ahead log had taken before), reads go on, readiness names the directory.
    const refusedNames: string[] = [];
    for (let i = 0; i < 50 && refusedNames.length < 3; i++) {
      const res = await attest(`again-${i}`);
      assert.ok(
        res.status === 201 || res.status === 507,
        `answered ${res.status}: ${JSON.stringify(res.body)}`,
      );
      (res.status === 201 ? acknowledged : refusedNames).push(`again-${i}`);
    }
    assert.equal(refusedNames.length, 3, 'writes are refused while the disk is full');
    // A file sent with evidence: refused the same way, and nothing of it is left behind.
    const form = new FormData();
    form.set('data_json', JSON.stringify({ attestation_name: 'with-file' }));
    form.set('attachment_file', new Blob([Buffer.alloc(2 * 1024 * 1024, 7)]), 'big.bin');
    const upload = await fetch(`${base}/api/v2/attestations/demo/disk/trail/big/generic`, {
      method: 'POST',
      headers: { Authorization: headers.Authorization },
      body: form,
    });
    const uploadBody = (await upload.json()) as { message: string };
    assert.equal(upload.status, 507, JSON.stringify(uploadBody));
    assert.match(uploadBody.message, /^Insufficient storage: /);
    refusedNames.push('with-file');
    // Its temporary file goes once the request is over.
    await eventually(
      async () => readdirSync(join(data, 'attachments', 'tmp')),
      (left) => left.length === 0,
    );
    const trail = await send('GET', '/trails/demo/disk/big');
    assert.equal(trail.status, 200);
    const ready = await eventually(
      () =>
        fetch(`${base}/health/ready`).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { errors: Record<string, string> },
        })),
      (r) => r.status === 503,
    );
    assert.match(ready.body.errors.data_directory, new RegExp(`in ${data}: no space left on the device`));
    assert.equal(api.process.exitCode, null, 'still running');

    // Space returns: the same process recovers by itself.
    rmSync(ballast);
    rmSync(filler);
    await eventually(
      () => fetch(`${base}/health/ready`).then((r) => r.status),
      (status) => status === 200,
    );
    const afterSpace = await attest('after-space');
    assert.equal(afterSpace.status, 201, JSON.stringify(afterSpace.body));
    acknowledged.push('after-space');
    assert.doesNotMatch(api.output(), /uncaught|Internal server error/i);

    // Nothing acknowledged is lost, nothing refused was recorded (read back after a restart, from the log).
    api.process.kill('SIGTERM');
    assert.deepEqual(await api.exited, { code: 0, signal: null });
    api = startProcess('api', env);
    children.push(api);
    await untilLive(api, base);
    let recorded = '';
    for (let page = 1; ; page++) {
      const res = await send('GET', `/trails/demo/disk/big/events?page=${page}&per_page=100`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const events = (res.body as unknown as { events: unknown[] }).events;
      recorded += JSON.stringify(events);
      if (events.length < 100) break;
    }
    for (const name of acknowledged)
      assert.match(recorded, new RegExp(`\\b${name}\\b`), `${name} was acknowledged and kept`);
    for (const name of refusedNames)
      assert.doesNotMatch(recorded, new RegExp(`\\b${name}\\b`), `refused ${name} left nothing behind`);
  });
});
