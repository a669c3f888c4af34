import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqliteEventStore } from '../libs/event-store/src';
import { MongoReadStore } from '../libs/read-store/src';
import { mongoEngine, uniqueName } from './support/engines';
import { APPS } from './support/processes';
import { allProjections } from '../apps/api/src/projections';

describe('cli', () => {
  it('`rebuild` replays the log into the read models and reports it', async () => {
    const eventsPath = join(mkdtempSync(join(tmpdir(), 'des-cli-')), 'events.db');
    const store = new SqliteEventStore({ path: eventsPath });
    for (let i = 0; i < 30; i++) {
      await store.append(
        `flow-acme/f${i % 3}`,
        [{ id: randomUUID(), type: 'flow_updated', data: { i }, metadata: { org: 'acme' } }],
        'any',
      );
    }
    await store.close();
    const mongoUrl = (await mongoEngine()).url;
    const database = uniqueName('cli');
    const reads = await new MongoReadStore({ url: mongoUrl, database }).connect();
    // A stale document the rebuild must drop.
    await reads
      .collection('stream_stats')
      .updateOne({ _id: 'stale' }, { $set: { events: 99 } }, { upsert: true });

    const run = spawnSync(process.execPath, [join(APPS, 'cli/src/main.js'), 'rebuild'], {
      env: {
        ...process.env,
        EVENT_STORE_URL: `sqlite:${eventsPath}`,
        MONGODB_URL: mongoUrl,
        MONGODB_DATABASE: database,
      },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`rebuilt ${allProjections.length} projections from 30 events`));
    const docs = await reads.collection('stream_stats').find({}, { sort: { _id: 1 } });
    assert.deepEqual(
      docs.map((d) => [d._id, d.events]),
      [
        ['flow-acme/f0', 10],
        ['flow-acme/f1', 10],
        ['flow-acme/f2', 10],
      ],
    );
    await reads.close();
  });

  it('refuses an unknown command with usage and exit code 2', () => {
    const run = spawnSync(process.execPath, [join(APPS, 'cli/src/main.js'), 'frobnicate'], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /unknown command 'frobnicate'/);
    assert.match(run.stderr, /rebuild/);
  });
});
