import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../engines';
import { Mode, modeEnv } from '../app';
import { APPS, Child, eventually, startProcess, untilLive } from '../processes';

/**
 * The service under attack as child processes (a crash is observed, not
 * fatal to the runner): embedded = one process; server = API, projector
 * and worker on FerretDB and Redis. The attacker's and the victim's
 * organizations are made with the CLI before the first start.
 */
export interface Service {
  mode: Mode;
  baseUrl: string;
  keys: { attacker: string; victim: string };
  /** Each process's RSS now (bytes), by role. */
  rss(): Record<string, number>;
  /** The first process that exited since the last (re)start, and how. */
  died(): string | undefined;
  /** The last lines each process wrote (for a failure message). */
  tail(): string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export const ORGS = { attacker: 'attacker', victim: 'victim' };

function createOrg(env: NodeJS.ProcessEnv, org: string): string {
  const made = spawnSync(
    process.execPath,
    [join(APPS, 'cli/src/main.js'), 'org', 'create', org, '--features', 'evaluations,controls'],
    { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, encoding: 'utf8' },
  );
  const key = made.stdout.match(/^\s+(\S+)\s*$/m)?.[1];
  if (made.status !== 0 || !key)
    throw new Error(`org create ${org} failed (${made.status}): ${made.stdout}${made.stderr}`);
  return key;
}

function rssOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

export async function startService(mode: Mode, extra: NodeJS.ProcessEnv = {}): Promise<Service> {
  const port = await freePort();
  const env = await modeEnv(mode, { PORT: String(port), LOG_LEVEL: 'warn', ...extra });
  const keys = { attacker: createOrg(env, ORGS.attacker), victim: createOrg(env, ORGS.victim) };
  const baseUrl = `http://127.0.0.1:${port}`;
  let children: Record<string, Child> = {};
  let died: string | undefined;
  let stopping = false;
  const start = async () => {
    died = undefined;
    children =
      mode === 'embedded'
        ? { service: startProcess('api', env) }
        : {
            projector: startProcess('projector', env),
            worker: startProcess('worker', env),
            api: startProcess('api', env, ['--role=api']),
          };
    for (const [role, child] of Object.entries(children)) {
      void child.exited.then(({ code, signal }) => {
        if (!stopping)
          died ??= `${role} exited (${signal ?? code}); its last output:\n${child.output().slice(-3000)}`;
      });
    }
    await untilLive(children.service ?? children.api, baseUrl, 120_000);
    // Server mode: the keys made by the CLI are known once the projector has caught up.
    for (const [org, key] of [
      [ORGS.attacker, keys.attacker],
      [ORGS.victim, keys.victim],
    ]) {
      await eventually(
        () =>
          fetch(`${baseUrl}/api/v2/flows/${org}`, { headers: { Authorization: `Bearer ${key}` } }).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status === 200,
        120_000,
      );
    }
  };
  await start();
  const stop = async () => {
    stopping = true;
    for (const child of Object.values(children)) await child.stop();
    stopping = false;
  };
  return {
    mode,
    baseUrl,
    keys,
    rss: () => Object.fromEntries(Object.entries(children).map(([role, c]) => [role, rssOf(c.process.pid)])),
    died: () => died,
    tail: () =>
      Object.entries(children)
        .map(([role, c]) => `--- ${role}:\n${c.output().slice(-1500)}`)
        .join('\n'),
    restart: async () => {
      await stop();
      await start();
    },
    stop,
  };
}
