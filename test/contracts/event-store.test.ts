import { test } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventStoreContract } from '../../libs/event-store/src/event-store.contract';
import { KurrentDbEventStore, SqliteEventStore } from '../../libs/event-store/src';

eventStoreContract(
  'SQLite (file, WAL)',
  async () => new SqliteEventStore({ path: join(mkdtempSync(join(tmpdir(), 'des-es-')), 'events.db') }),
);

const kurrentUrl = process.env.KURRENTDB_URL;
if (kurrentUrl) {
  eventStoreContract('KurrentDB', async () => new KurrentDbEventStore(kurrentUrl));
} else {
  test(
    'event store contract: KurrentDB',
    { skip: 'SKIPPED: KURRENTDB_URL is not set, no KurrentDB server to test against' },
    () => {},
  );
}
