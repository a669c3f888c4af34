import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Real engines for tests, started on free loopback ports. The test runner
 * (scripts/run-tests.mjs) starts them once and passes their URLs down in
 * TEST_REDIS_URL / TEST_MONGODB_URL; a test file run on its own starts its own.
 */
export const TOOLS_BIN = resolve(__dirname, '../../../.tools/bin');

export interface Engine {
  url: string;
  description: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForPort(
  port: number,
  child: ChildProcess,
  name: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((ok) => {
      const socket = new Socket();
      socket.once('connect', () => (socket.destroy(), ok(true)));
      socket.once('error', () => (socket.destroy(), ok(false)));
      socket.connect(port, '127.0.0.1');
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not listen on ${port} within ${timeoutMs} ms`);
}

function which(command: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function stopper(child: ChildProcess, dir?: string): () => Promise<void> {
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

/** A redis-server of its own (on `port` if given, else a free one). */
export async function startRedis(port?: number): Promise<Engine> {
  const binary = which('redis-server');
  if (!binary) throw new Error('redis-server is not installed: run `npm run setup`');
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'des-redis-'));
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  await waitForPort(port, child, 'redis-server');
  return {
    url: `redis://127.0.0.1:${port}`,
    description: `redis-server ${binary} :${port}`,
    stop: stopper(child, dir),
  };
}

/**
 * MONGODB_URL if given, else mongod on the PATH, else FerretDB (SQLite backend) from the setup script.
 * With `port` and `dir`, a server started again where one was stopped finds its data there
 * (the directory is then kept at stop).
 */
export async function startMongo(again?: { port: number; dir: string }): Promise<Engine> {
  if (process.env.MONGODB_URL && !again) {
    return { url: process.env.MONGODB_URL, description: 'MONGODB_URL', stop: async () => undefined };
  }
  const port = again?.port ?? (await freePort());
  const dir = again?.dir ?? mkdtempSync(join(tmpdir(), 'des-mongo-'));
  const mongod = which('mongod');
  let child: ChildProcess;
  let description: string;
  if (mongod) {
    child = spawn(mongod, ['--port', String(port), '--bind_ip', '127.0.0.1', '--dbpath', dir], {
      stdio: 'ignore',
    });
    description = `mongod :${port}`;
  } else {
    const ferret = join(TOOLS_BIN, 'ferretdb');
    if (!existsSync(ferret))
      throw new Error('no MongoDB-wire server: set MONGODB_URL or run `npm run setup`');
    const debugPort = await freePort();
    child = spawn(
      ferret,
      [
        '--handler=sqlite',
        `--sqlite-url=file:${dir}/`,
        `--state-dir=${dir}`,
        `--listen-addr=127.0.0.1:${port}`,
        `--debug-addr=127.0.0.1:${debugPort}`,
        '--telemetry=disable',
        '--log-level=ERROR',
      ],
      { stdio: 'ignore' },
    );
    description = `FerretDB (SQLite backend) :${port}`;
  }
  await waitForPort(port, child, description);
  return { url: `mongodb://127.0.0.1:${port}/`, description, stop: stopper(child, again ? undefined : dir) };
}

/** Uses the engine the runner started, or starts one for this process. */
export async function sharedEngine(envVar: string, start: () => Promise<Engine>): Promise<Engine> {
  const url = process.env[envVar];
  if (url) return { url, description: envVar, stop: async () => undefined };
  return start();
}

export const redisEngine = () => sharedEngine('TEST_REDIS_URL', startRedis);
export const mongoEngine = () => sharedEngine('TEST_MONGODB_URL', startMongo);

/** A fresh database name per suite so suites sharing one server never collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}
