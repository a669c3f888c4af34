import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

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

function stopper(child: ChildProcess, dir?: string, signal: NodeJS.Signals = 'SIGTERM'): () => Promise<void> {
  return async () => {
    const running = () => child.exitCode === null && child.signalCode === null;
    if (running()) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (running()) child.kill('SIGKILL');
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
 * The FerretDB backend the tests use when there is neither MONGODB_URL nor a
 * mongod: DES_TEST_FERRETDB_BACKEND, `sqlite` (the default: like MongoDB, it
 * holds a NUL in a string, which PostgreSQL's jsonb cannot) or `postgresql`
 * (with the `_id` index: ADR 0033).
 */
export type FerretBackend = 'postgresql' | 'sqlite';
export const DEFAULT_FERRET_BACKEND: FerretBackend = 'sqlite';

export function ferretBackend(env: NodeJS.ProcessEnv = process.env): FerretBackend {
  const backend = env.DES_TEST_FERRETDB_BACKEND || DEFAULT_FERRET_BACKEND;
  if (backend !== 'postgresql' && backend !== 'sqlite')
    throw new Error(`DES_TEST_FERRETDB_BACKEND=${backend}: expected postgresql or sqlite`);
  return backend;
}

/** Where a stopped server is started again: its port and its data directory (kept at stop). */
export interface Again {
  port: number;
  dir: string;
}

/**
 * MONGODB_URL if given, else mongod on the PATH, else FerretDB from the setup
 * script on `backend` (DES_TEST_FERRETDB_BACKEND by default).
 * With `again`, a server started again where one was stopped finds its data there
 * (the directory is then kept at stop).
 */
export async function startMongo(again?: Again, backend: FerretBackend = ferretBackend()): Promise<Engine> {
  if (process.env.MONGODB_URL && !again) {
    return { url: process.env.MONGODB_URL, description: 'MONGODB_URL', stop: async () => undefined };
  }
  const mongod = which('mongod');
  if (!mongod) {
    return backend === 'postgresql' ? startFerretPostgres(again) : startFerretSqlite(again);
  }
  const port = again?.port ?? (await freePort());
  const dir = again?.dir ?? mkdtempSync(join(tmpdir(), 'des-mongo-'));
  const child = spawn(mongod, ['--port', String(port), '--bind_ip', '127.0.0.1', '--dbpath', dir], {
    stdio: 'ignore',
  });
  const description = `mongod :${port}`;
  await waitForPort(port, child, description);
  return { url: `mongodb://127.0.0.1:${port}/`, description, stop: stopper(child, again ? undefined : dir) };
}

/** Whether startMongo finds a MongoDB of the user's (MONGODB_URL, or mongod on the PATH) before FerretDB. */
export function ownMongo(): boolean {
  return Boolean(process.env.MONGODB_URL || which('mongod'));
}

function ferretBinary(): string {
  const ferret = join(TOOLS_BIN, 'ferretdb');
  if (!existsSync(ferret)) throw new Error('no MongoDB-wire server: set MONGODB_URL or run `npm run setup`');
  return ferret;
}

/** FerretDB with its backend's flags, on `port` of loopback, telemetry off, errors only. */
async function spawnFerret(port: number, backend: string[]): Promise<ChildProcess> {
  const debugPort = await freePort();
  return spawn(
    ferretBinary(),
    [
      ...backend,
      `--listen-addr=127.0.0.1:${port}`,
      `--debug-addr=127.0.0.1:${debugPort}`,
      '--telemetry=disable',
      '--log-level=ERROR',
    ],
    { stdio: 'ignore' },
  );
}

/** FerretDB on its SQLite backend, one file per database in a temporary directory. */
export async function startFerretSqlite(again?: Again): Promise<Engine> {
  const port = again?.port ?? (await freePort());
  const dir = again?.dir ?? mkdtempSync(join(tmpdir(), 'des-mongo-'));
  const child = await spawnFerret(port, [
    '--handler=sqlite',
    `--sqlite-url=file:${dir}/`,
    `--state-dir=${dir}`,
  ]);
  const description = `FerretDB (SQLite backend) :${port}`;
  await waitForPort(port, child, description);
  return { url: `mongodb://127.0.0.1:${port}/`, description, stop: stopper(child, again ? undefined : dir) };
}

/**
 * Connections FerretDB may open to PostgreSQL. FerretDB v1 holds one for each
 * document an update of a bulk command matched until the command ends, and
 * waits without end for one when none is free: its default (50) stalls on a
 * projector's bulk of 50 (BULK_CHUNK) beside any other write. PostgreSQL is
 * given that many and a few for the harness.
 */
const FERRET_PG_POOL = 500;

/**
 * FerretDB on its PostgreSQL backend (`--handler=postgresql`), over a
 * PostgreSQL cluster of its own (`startPostgres`) in the same directory.
 * With `idIndex` (the default), each table FerretDB creates gets an index
 * its `_id` filters use (`ID_INDEX_SQL`).
 */
export async function startFerretPostgres(
  again?: Again,
  options: { idIndex?: boolean } = {},
): Promise<FerretPostgres> {
  const idIndex = options.idIndex ?? true;
  ferretBinary(); // before a cluster is started: no FerretDB, no cluster
  const dir = again?.dir ?? mkdtempSync(join(tmpdir(), 'des-ferretpg-'));
  const postgres = await startPostgres(dir);
  try {
    postgres.psql(idIndex ? ID_INDEX_SQL : NO_ID_INDEX_SQL);
    const port = again?.port ?? (await freePort());
    const state = join(dir, 'ferretdb');
    mkdirSync(state, { recursive: true });
    const child = await spawnFerret(port, [
      '--handler=postgresql',
      `--postgresql-url=postgres://postgres@127.0.0.1:${postgres.port}/postgres?pool_max_conns=${FERRET_PG_POOL}`,
      `--state-dir=${state}`,
    ]);
    const description = `FerretDB (PostgreSQL ${postgres.version} backend${idIndex ? ', _id index' : ''}) :${port}`;
    const stopFerret = stopper(child);
    try {
      await waitForPort(port, child, description);
    } catch (error) {
      await stopFerret();
      throw error;
    }
    return {
      url: `mongodb://127.0.0.1:${port}/`,
      description,
      postgres,
      scans: async () => {
        await stopFerret();
        // Each PostgreSQL backend reports its counts as it exits (an idle one only every 10 s).
        const deadline = Date.now() + 10_000;
        while (
          Number(
            postgres.psql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"),
          ) > 1 &&
          Date.now() < deadline
        )
          await new Promise((r) => setTimeout(r, 50));
        const rows = postgres.psql(
          `SELECT schemaname, sum(seq_scan), sum(seq_tup_read), sum(coalesce(idx_scan, 0)) FROM pg_stat_user_tables
           WHERE relname <> '_ferretdb_database_metadata' GROUP BY schemaname ORDER BY schemaname`,
        );
        return Object.fromEntries(
          rows
            .split('\n')
            .filter(Boolean)
            .map((row) => {
              const [schema, seq, read, idx] = row.split('|');
              return [
                schema,
                { seq_scans: Number(seq), seq_rows_read: Number(read), index_scans: Number(idx) },
              ];
            }),
        );
      },
      stop: async () => {
        await stopFerret();
        await postgres.stop();
        if (!again) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await postgres.stop();
    if (!again) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * FerretDB v1 filters a document by `_id` with jsonb containment
 * (`_jsonb->'_id' @> '"…"'`), which the btree index it makes for `_id` cannot
 * serve: every update, upsert and read by `_id` scans the whole table
 * (EXPLAIN: Seq Scan). An event trigger gives each table FerretDB creates a GIN
 * index on `_jsonb->'_id'` (jsonb_path_ops), which serves exactly that filter;
 * `fastupdate = off` puts each entry in the index at once, so a lookup never
 * also reads a pending list. FerretDB knows nothing of it (it lists, creates and drops its own indexes
 * from its metadata); dropping the table drops it.
 */
const ID_INDEX_SQL = `
CREATE OR REPLACE FUNCTION des_id_index() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE t record;
BEGIN
  FOR t IN SELECT objid, object_identity FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE TABLE' LOOP
    IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = t.objid AND attname = '_jsonb' AND NOT attisdropped) THEN
      EXECUTE format('CREATE INDEX ON %s USING gin ((_jsonb->''_id'') jsonb_path_ops) WITH (fastupdate = off)', t.object_identity);
    END IF;
  END LOOP;
END $$;
DROP EVENT TRIGGER IF EXISTS des_id_index;
CREATE EVENT TRIGGER des_id_index ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION des_id_index();
`;
const NO_ID_INDEX_SQL = 'DROP EVENT TRIGGER IF EXISTS des_id_index;';

/** Table scans PostgreSQL counted, per MongoDB database (a schema of FerretDB's). */
export type ScanCounts = Record<string, { seq_scans: number; seq_rows_read: number; index_scans: number }>;

export interface FerretPostgres extends Engine {
  postgres: PostgresServer;
  /** Stops FerretDB (not PostgreSQL: `stop` does) and returns the scans counted over its life. */
  scans(): Promise<ScanCounts>;
}

export interface PostgresServer {
  port: number;
  version: string;
  /** Runs SQL with psql (database `postgres`) and returns its unaligned output. */
  psql(sql: string): string;
  stop(): Promise<void>;
}

/** The PostgreSQL programs: those on the PATH, else Debian's newest /usr/lib/postgresql/<version>/bin. */
function postgresBin(): string {
  const initdb = which('initdb');
  if (initdb) return dirname(realpathSync(initdb));
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin/initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error('PostgreSQL is not installed: run `npm run setup`');
  return join(base, versions[0], 'bin');
}

/**
 * PostgreSQL refuses to run as root: as root, its programs run as the
 * `postgres` user (made by Debian's package) through setpriv, in a directory
 * given to that user.
 */
function unprivileged(dir: string): string[] {
  if (process.getuid?.() !== 0) return [];
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0)
    throw new Error('PostgreSQL will not run as root and there is no `postgres` user: run `npm run setup`');
  const setpriv = which('setpriv');
  if (!setpriv)
    throw new Error('setpriv (util-linux) is missing: PostgreSQL cannot be started as `postgres`');
  chownSync(dir, Number(uid.stdout), Number(gid.stdout));
  return [setpriv, '--reuid=postgres', '--regid=postgres', '--init-groups', '--'];
}

/**
 * A throwaway PostgreSQL cluster in `dir` (made there by initdb the first
 * time; found again when started on the same directory), on a free loopback
 * port, trusting local connections. Its log is `dir/postgres.log`.
 */
export async function startPostgres(dir: string): Promise<PostgresServer> {
  const bin = postgresBin();
  const as = unprivileged(dir);
  const data = join(dir, 'pgdata');
  const run = (program: string, args: string[]) => {
    const [command, ...rest] = [...as, join(bin, program), ...args];
    return spawnSync(command, rest, { cwd: dir, encoding: 'utf8' });
  };
  if (!existsSync(join(data, 'PG_VERSION'))) {
    const init = run('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr}`);
  }
  const version = readFileSync(join(data, 'PG_VERSION'), 'utf8').trim();
  const port = await freePort();
  const log = openSync(join(dir, 'postgres.log'), 'a');
  const [command, ...args] = [
    ...as,
    join(bin, 'postgres'),
    ...['-D', data, '-p', String(port), '-k', dir],
    ...['-c', 'listen_addresses=127.0.0.1', '-c', `max_connections=${FERRET_PG_POOL + 20}`],
  ];
  const child = spawn(command, args, { cwd: dir, stdio: ['ignore', log, log] });
  closeSync(log);
  const stop = stopper(child, undefined, 'SIGINT'); // fast shutdown: clients are cut off
  const psql = (sql: string) => {
    const r = spawnSync(
      join(bin, 'psql'),
      ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-X', '-q', '-A', '-t'],
      { input: `\\set ON_ERROR_STOP on\n${sql}\n`, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`psql failed (${r.status}): ${r.stderr}`);
    return r.stdout.trim();
  };
  try {
    await waitForPort(port, child, `PostgreSQL ${version}`);
    // The port opens before the cluster takes connections.
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        psql('SELECT 1');
        break;
      } catch (error) {
        if (Date.now() > deadline || child.exitCode !== null) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (error) {
    await stop();
    const tail = readFileSync(join(dir, 'postgres.log'), 'utf8').split('\n').slice(-10).join('\n');
    throw new Error(`${(error as Error).message}\n${tail}`);
  }
  return { port, version, psql, stop };
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
