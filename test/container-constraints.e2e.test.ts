import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from './support/engines';
import { modeEnv } from './support/app';
import { type Child, eventually, startProcess, untilLive } from './support/processes';

/** The unprivileged user the processes run as (the image runs as its own, 10001). */
const NOBODY = { uid: 65534, gid: 65534 };
const ROOT_ONLY = process.getuid?.() === 0 ? false : 'starting processes as another user needs root';

/**
 * The image's constraints, checked without a container engine: every role in
 * server mode as a non-root user, the application directory (the compiled
 * code, node_modules, OPA) owned by root and not writable by that user, and
 * only a data directory of its own writable (TMPDIR and HOME inside it, as
 * the image's /data and /tmp). The processes serve writes, an attachment, a
 * policy evaluation and a PDF, stop cleanly, and leave no file of theirs
 * anywhere but in their data directories.
 */
describe(
  'container constraints: non-root, read-only application, one writable volume',
  { skip: ROOT_ONLY },
  () => {
    const children: Child[] = [];
    const volumes = mkdtempSync(join(tmpdir(), 'des-volumes-'));
    after(async () => {
      for (const c of children) await c.stop();
      rmSync(volumes, { recursive: true, force: true });
    });

    it('every role starts and works as a non-root user and writes nowhere but its data volume', async () => {
      chmodSync(volumes, 0o755);
      // Files the user owns from before this test (another run's) are not this run's writes.
      const since = join(volumes, '.started');
      writeFileSync(since, '');
      const volume = (name: string) => {
        const dir = join(volumes, name);
        mkdirSync(join(dir, 'tmp'), { recursive: true });
        for (const d of [dir, join(dir, 'tmp')]) {
          chownSync(d, NOBODY.uid, NOBODY.gid);
          chmodSync(d, 0o700);
        }
        return { DES_DATA_DIR: dir, TMPDIR: join(dir, 'tmp'), HOME: join(dir, 'tmp') };
      };
      const shared = volume('shared');
      const keyFile = join(volumes, 'service-key');
      writeFileSync(keyFile, 'a-mounted-service-key-for-every-process\n', { mode: 0o444 });
      const env = await modeEnv('server', {
        EVENT_STORE_URL: `sqlite:${join(shared.DES_DATA_DIR, 'events.db')}`,
        DES_SERVICE_KEY_FILE: keyFile,
        LOG_LEVEL: 'info',
      });
      const start = (app: 'api' | 'projector' | 'worker', extra: NodeJS.ProcessEnv, args: string[] = []) => {
        const child = startProcess(app, { ...env, ...extra }, args, NOBODY);
        children.push(child);
        return child;
      };
      const ops = { projector: await freePort(), worker: await freePort() };
      const projector = start('projector', { ...volume('projector'), DES_OPS_PORT: String(ops.projector) });
      const worker = start('worker', { ...volume('worker'), DES_OPS_PORT: String(ops.worker) });
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const apiVolume = volume('api');
      const api = start('api', { ...apiVolume, PORT: String(port) }, ['--role=api']);
      await untilLive(api, base);
      for (const [role, p] of Object.entries(ops)) {
        const child = role === 'worker' ? worker : projector;
        await untilLive(child, `http://127.0.0.1:${p}`);
        await eventually(
          () => fetch(`http://127.0.0.1:${p}/health/ready`).then((r) => r.status),
          (status) => status === 200,
        );
      }
      const key = readFileSync(join(apiVolume.DES_DATA_DIR, 'initial-admin-key'), 'utf8').trim();
      const auth = { Authorization: `Bearer ${key}` };
      const json = { ...auth, 'Content-Type': 'application/json' };
      const call = async (method: string, path: string, body?: object) => {
        const res = await fetch(`${base}/api/v2${path}`, {
          method,
          headers: json,
          body: body && JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
      };

      assert.equal((await call('PUT', '/flows/demo', { name: 'ro' })).status, 201);
      assert.equal((await call('PUT', '/trails/demo/ro', { name: 't1' })).status, 201);
      const form = new FormData();
      form.set('data_json', JSON.stringify({ attestation_name: 'notes' }));
      form.set('attachment_file', new Blob(['kept in shared storage\n']), 'notes.txt');
      const attached = await fetch(`${base}/api/v2/attestations/demo/ro/trail/t1/generic`, {
        method: 'POST',
        headers: auth,
        body: form,
      });
      assert.equal(attached.status, 201, await attached.text());
      // A policy compiled by OPA and evaluated in the worker.
      const evaluation = await call('POST', '/evaluations/demo', {
        context: { trails: [{ flow: 'ro', trail: 't1' }] },
        policy: { files: { 'policy.rego': 'package policy\nimport rego.v1\ndefault allow := true\n' } },
      });
      assert.equal(evaluation.status, 201, JSON.stringify(evaluation.body));
      const done = await eventually(
        () => call('GET', `/evaluations/demo/${evaluation.body.id as string}`),
        (r) => r.body.status !== 'pending',
        60_000,
      );
      assert.equal(done.body.status, 'completed', JSON.stringify(done.body));
      // A report PDF, rendered by Chromium as the unprivileged user.
      const pdf = await fetch(`${base}/api/v2/trails/demo/ro/t1/audit_pdf`, { headers: auth });
      assert.equal(pdf.status, 200, await pdf.clone().text());
      assert.equal(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString(),
        '%PDF-',
      );

      for (const child of [api, worker, projector]) {
        child.process.kill('SIGTERM');
        assert.deepEqual(await child.exited, { code: 0, signal: null }, child.output().slice(-2000));
        assert.doesNotMatch(child.output(), /EACCES|EROFS|permission denied/i);
      }
      // Nothing of theirs outside the volumes: every file the user owns is in one of its data directories.
      const owned = new Set<string>();
      for (const root of ['/', tmpdir(), process.cwd()])
        for (const path of execFileSync(
          'find',
          [root, '-xdev', '-user', String(NOBODY.uid), '-newer', since, '-not', '-path', `${volumes}/*`],
          { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
        ).split('\n'))
          if (path) owned.add(path);
      assert.deepEqual([...owned], [], 'files written outside the data volumes');
    });
  },
);
