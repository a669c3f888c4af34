import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteEventStore } from '#des/event-store';
import { CHECKPOINTS, Projector, POSITION_FIELD, positionsFrom } from '#des/projections';
import { MongoReadStore } from '#des/read-store';
import { allProjections } from '#des/service';
import { mongoEngine, uniqueName } from './support/engines';
import { eventually, startProcess } from './support/processes';

const EVENTS = 600;
const BATCH = 100;
const KILL_AFTER_WRITES = 350;

describe('projector crash (kill -9 between a read-model write and its checkpoint)', () => {
  let eventsPath: string;
  let mongoUrl: string;
  let database: string;
  let reads: MongoReadStore;

  before(async () => {
    eventsPath = join(mkdtempSync(join(tmpdir(), 'des-crash-')), 'events.db');
    mongoUrl = (await mongoEngine()).url;
    database = uniqueName('crash');
    const store = new SqliteEventStore({ path: eventsPath });
    for (let i = 0; i < EVENTS; i++) {
      // Events only stream_stats projects (one write each), so the kill after KILL_AFTER_WRITES
      // writes falls in the fourth batch whatever the service's other projections write.
      await store.append(
        `crash-acme/flow-${i % 40}`,
        [
          {
            id: randomUUID(),
            type: i % 3 ? 'crash_noted' : 'crash_observed',
            data: { i },
            metadata: { org: 'acme' },
          },
        ],
        'any',
      );
    }
    await store.close();
    reads = await new MongoReadStore({ url: mongoUrl, database }).connect();
  });
  after(async () => reads?.close());

  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    EVENT_STORE_URL: `sqlite:${eventsPath}`,
    MONGODB_URL: mongoUrl,
    MONGODB_DATABASE: database,
    DES_PROJECTOR_BATCH_SIZE: String(BATCH),
    DES_PROJECTOR_FLUSH_SIZE: '20',
    DES_PROJECTOR_LEASE_MS: '1000',
    LOG_LEVEL: 'silent',
    ...extra,
  });

  const stats = () => reads.collection('stream_stats').find({}, { sort: { _id: 1 } });
  const checkpoint = async () =>
    positionsFrom(await reads.collection(CHECKPOINTS).find({})).get('stream_stats') ?? 0;

  it('dies mid-batch with writes past its checkpoint, then converges to a full rebuild', async () => {
    const doomed = startProcess('projector', env({ DES_FAULT_KILL_AFTER_WRITES: String(KILL_AFTER_WRITES) }));
    const { signal } = await doomed.exited;
    assert.equal(signal, 'SIGKILL', doomed.output());

    const saved = await checkpoint();
    const afterCrash = await stats();
    const applied = afterCrash.reduce((n, d) => n + (d.events as number), 0);
    assert.equal(saved, 300, 'the last whole batch was checkpointed');
    assert.ok(
      applied >= KILL_AFTER_WRITES && applied < saved + BATCH,
      `writes of the batch in flight landed (${applied})`,
    );
    assert.ok(
      afterCrash.some((d) => (d[POSITION_FIELD] as number) > saved),
      'some documents hold writes the checkpoint does not cover',
    );

    const restarted = startProcess('projector', env());
    try {
      // At least EVENTS: the restarted projector's transparency log may sign a checkpoint of the
      // sequenced events (one event more, its own stream) before this poll sees exactly EVENTS.
      await eventually(checkpoint, (p) => p >= EVENTS, 30_000);
    } finally {
      await restarted.stop();
    }
    const converged = await stats();

    const rebuiltStore = await new MongoReadStore({
      url: mongoUrl,
      database: uniqueName('rebuilt'),
    }).connect();
    try {
      const events = new SqliteEventStore({ path: eventsPath });
      await new Projector(events, rebuiltStore, allProjections).rebuild();
      await events.close();
      const rebuilt = await rebuiltStore.collection('stream_stats').find({}, { sort: { _id: 1 } });
      assert.equal(
        // The test's own events: the transparency log's checkpoints (the service's, `ledger-…`) aside.
        rebuilt
          .filter((d) => !String(d._id).startsWith('ledger-'))
          .reduce((n, d) => n + (d.events as number), 0),
        EVENTS,
      );
      // The transparency log signs checkpoints on its own clock: one may land after the restarted
      // projector stopped, so the comparison is of the test's own streams.
      const own = (docs: typeof rebuilt) => docs.filter((d) => !String(d._id).startsWith('ledger-'));
      assert.deepEqual(own(converged), own(rebuilt), 'read models after the crash equal a full rebuild');
    } finally {
      await rebuiltStore.close();
    }
  });
});
