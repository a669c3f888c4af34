import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { assertFollowReportsOutage, eventStoreContract } from '#des/event-store/contract';
import { EventStore, KurrentDbEventStore, SqliteEventStore, StoreUnavailableError } from '#des/event-store';
import { freePort } from '../support/engines';

const sqlitePath = () => join(mkdtempSync(join(tmpdir(), 'des-es-')), 'events.db');

eventStoreContract('SQLite (file, WAL)', async () => new SqliteEventStore({ path: sqlitePath() }), {
  // The embedded store's "unreachable": closed under the code that holds it.
  openUnreachable: async () => {
    const store = new SqliteEventStore({ path: sqlitePath() });
    await store.close();
    return store;
  },
});

const kurrentUrl = process.env.KURRENTDB_URL;
if (kurrentUrl) {
  eventStoreContract('KurrentDB', async () => new KurrentDbEventStore(kurrentUrl), {
    openUnreachable: async () =>
      new KurrentDbEventStore(`kurrentdb://127.0.0.1:${await freePort()}?tls=false`, {
        connectTimeoutMs: 1000,
      }),
  });
} else {
  test(
    'event store contract: KurrentDB',
    { skip: 'SKIPPED: KURRENTDB_URL is not set, no KurrentDB server to test against' },
    () => {},
  );
}

const lost = () => [{ id: randomUUID(), type: 'lost', data: {}, metadata: {} }];

/** Every operation of the port, each expected to fail with StoreUnavailableError. */
const operations = (store: EventStore): [string, () => Promise<unknown>][] => [
  ['append', () => store.append('note-acme/x', lost(), 'any')],
  ['readStream', () => store.readStream('note-acme/x')],
  ['readAll', () => store.readAll(0, 10)],
  ['head', () => store.head()],
  ['ping', () => store.ping()],
];

/**
 * The real client against no KurrentDB (runs without KURRENTDB_URL): nothing
 * listening, and a server that accepts connections but never answers (a hung
 * node, a black-holed route). Both must be StoreUnavailableError, the second
 * within about DES_CONNECT_TIMEOUT_MS.
 */
describe('KurrentDB adapter without a server (the real client)', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let silentPort = 0;
  before(async () => {
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('nothing listening: every operation fails with StoreUnavailableError', async () => {
    const store = new KurrentDbEventStore(`kurrentdb://127.0.0.1:${await freePort()}?tls=false`, {
      connectTimeoutMs: 2000,
    });
    try {
      for (const [what, operation] of operations(store)) {
        await assert.rejects(operation(), StoreUnavailableError, what);
      }
    } finally {
      await store.close();
    }
  });

  it('a server that never answers: every operation fails with StoreUnavailableError after the connect timeout', async () => {
    const connectTimeoutMs = 700;
    const store = new KurrentDbEventStore(`kurrentdb://127.0.0.1:${silentPort}?tls=false`, {
      connectTimeoutMs,
    });
    try {
      for (const [what, operation] of operations(store)) {
        const started = Date.now();
        await assert.rejects(operation(), StoreUnavailableError, what);
        const took = Date.now() - started;
        // Bounded by the adapter, not by the client's own (much longer or absent) limits.
        assert.ok(took < connectTimeoutMs + 5000, `${what} took ${took} ms`);
      }
      await assertFollowReportsOutage(store);
    } finally {
      await store.close();
    }
  });
});
