import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { modeEnv } from './support/app';
import { freePort } from './support/engines';
import { type Child, eventually, startProcess, untilLive } from './support/processes';

/** A process's parent and state (`Z`: a zombie, dead already), from /proc; undefined once it is gone. */
function statusOf(pid: number): { ppid: number; state: string } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { ppid: Number(/^PPid:\s+(\d+)/m.exec(status)![1]), state: /^State:\s+(\S)/m.exec(status)![1] };
  } catch {
    return undefined;
  }
}

/** Every live process descending from `root` (Chromium and the renderers, GPU and zygote it forks). */
function descendantsOf(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc'))
    if (/^\d+$/.test(name)) {
      const status = statusOf(Number(name));
      if (status) parents.set(Number(name), status.ppid);
    }
  const found: number[] = [];
  for (const [pid] of parents) {
    for (let up = parents.get(pid); up !== undefined && up > 1; up = parents.get(up))
      if (up === root) {
        found.push(pid);
        break;
      }
  }
  return found;
}

const alive = (pids: number[]) =>
  pids.filter((pid) => {
    const status = statusOf(pid);
    return status !== undefined && status.state !== 'Z';
  });

/** An API process (embedded) that has rendered one trail audit PDF, so its Chromium runs. */
async function serviceThatRendered(children: Child[]): Promise<{ api: Child; chromium: number[] }> {
  const port = await freePort();
  const env = await modeEnv('embedded', { PORT: String(port), LOG_LEVEL: 'info' });
  const api = startProcess('api', env, ['--role=all']);
  children.push(api);
  const base = `http://127.0.0.1:${port}`;
  await untilLive(api, base);
  const key = readFileSync(join(env.DES_DATA_DIR!, 'initial-admin-key'), 'utf8').trim();
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const put = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: 'PUT', headers, body: JSON.stringify(body) });
  assert.equal((await put('/api/v2/flows/demo', { name: 'shop' })).status, 201);
  assert.equal((await put('/api/v2/trails/demo/shop', { name: 'build-1' })).status, 201);
  const pdf = await fetch(`${base}/api/v2/trails/demo/shop/build-1/audit_pdf`, { headers });
  assert.equal(pdf.status, 200, await pdf.clone().text());
  assert.equal(
    Buffer.from(await pdf.arrayBuffer())
      .subarray(0, 5)
      .toString(),
    '%PDF-',
  );
  const chromium = alive(descendantsOf(api.process.pid!));
  assert.ok(chromium.length > 0, 'the service runs a Chromium after rendering a PDF');
  return { api, chromium };
}

describe("the renderer's browser lives and dies with the service", () => {
  const children: Child[] = [];
  const left: number[] = [];
  after(async () => {
    for (const c of children) await c.stop();
    // Whatever a failed run left behind goes with the test (these are this test's processes only).
    for (const pid of alive(left)) process.kill(pid, 'SIGKILL');
  });

  it('Chromium exits when the service is killed (SIGKILL): none of its processes survive', async () => {
    const { api, chromium } = await serviceThatRendered(children);
    left.push(...chromium);
    api.process.kill('SIGKILL');
    assert.equal((await api.exited).signal, 'SIGKILL');
    const survivors = await eventually(
      async () => alive(chromium),
      (pids) => pids.length === 0,
      60_000,
    ).catch((error: Error) => assert.fail(`${error.message}: Chromium survived its service`));
    assert.deepEqual(survivors, []);
  });

  it('Ctrl-C (SIGINT) reaches the service: it shuts down gracefully (exit 0) and closes Chromium', async () => {
    const { api, chromium } = await serviceThatRendered(children);
    left.push(...chromium);
    api.process.kill('SIGINT');
    // puppeteer's own SIGINT handler would kill the browser and exit 130 before the service drained.
    assert.deepEqual(await api.exited, { code: 0, signal: null }, api.output().slice(-2000));
    await eventually(
      async () => alive(chromium),
      (pids) => pids.length === 0,
      60_000,
    );
  });
});
