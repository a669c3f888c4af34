import { ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The compiled apps (dist-test mirrors the source tree). */
export const APPS = resolve(__dirname, '../../apps');

export interface Child {
  process: ChildProcess;
  /** Everything it wrote, stdout and stderr interleaved. */
  output(): string;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** Starts one of the service's processes (`projector`, `worker`, `api`) as a real child process. */
export function startProcess(
  app: 'projector' | 'worker' | 'api',
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  as: { uid?: number; gid?: number } = {},
): Child {
  const child = spawn(process.execPath, [join(APPS, app, 'src/main.js'), ...args], {
    ...as,
    // No ops port unless a test asks for one: several processes run side by side. A child's log is
    // kept for the test's assertions and failure messages (never printed): at info unless asked otherwise.
    env: {
      ...process.env,
      DES_OPS_PORT: '0',
      ...env,
      LOG_LEVEL: env.LOG_LEVEL && env.LOG_LEVEL !== 'silent' ? env.LOG_LEVEL : 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    output += d;
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    output += d;
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  return {
    process: child,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function eventually<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Waits until `base`/health/live answers 200. Fails at once, with the process's exit status and
 * the end of its output, if it dies first, and with the same output if the wait runs out.
 */
export async function untilLive(child: Child, base: string, timeoutMs = 60_000): Promise<void> {
  let died: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void child.exited.then((e) => (died = e));
  const status = async () => {
    if (died) throw new Error(`process exited (${died.code ?? died.signal}) before it was live`);
    return fetch(`${base}/health/live`).then(
      (r) => r.status,
      () => 0,
    );
  };
  try {
    await eventually(status, (s) => s === 200, timeoutMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}; its output:\n${child.output().slice(-4000)}`);
  }
}

/**
 * Starts a projector process and waits until its read models have caught up
 * with the log. A write made before that waits on a projector still starting,
 * and on a busy machine its read-your-writes wait can run out (503, ADR 0045).
 */
export async function startProjector(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Child> {
  const projector = startProcess('projector', env);
  try {
    await eventually(
      async () => projector.output(),
      (o) => /caught up/.test(o),
      timeoutMs,
    );
  } catch (error) {
    await projector.stop();
    throw new Error(`${(error as Error).message}; its output:\n${projector.output().slice(-4000)}`);
  }
  return projector;
}
