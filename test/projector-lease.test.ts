import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { EventStore, Following, SqliteEventStore } from '#des/event-store';
import { InProcessJobs } from '#des/jobs';
import {
  CommandExecutor,
  EventLogQuota,
  loadConfig,
  Metrics,
  StorageHealth,
  PlatformRuntime,
  PROJECTOR_LEASE,
  ReadModelProgress,
  TenantSources,
} from '#des/platform';
import { CHECKPOINTS, Lease, streamStatsProjection } from '#des/projections';
import { MongoReadStore, ReadStore } from '#des/read-store';
import { Engine, mongoEngine, uniqueName } from './support/engines';
import { eventually } from './support/processes';

let mongo: Engine | undefined;
after(async () => mongo?.stop());

describe('projector process: lease renewals while a start is slow', () => {
  it('renewing the lease during a slow start never starts a second follow loop', async () => {
    mongo = await mongoEngine();
    const database = uniqueName('lease');
    const real = await new MongoReadStore({ url: mongo.url, database }).connect();

    // The real read store; checkpoint reads (the projector's start) wait at a gate; lease writes are counted.
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const seen = { checkpointReads: 0, leaseWrites: 0 };
    const reads: ReadStore = Object.assign(Object.create(real) as ReadStore, {
      collection: (name: string) => {
        const c = real.collection(name);
        if (name === CHECKPOINTS) {
          return Object.assign(Object.create(c), {
            find: async (...args: Parameters<typeof c.find>) => {
              seen.checkpointReads++;
              await gate;
              return c.find(...args);
            },
          });
        }
        if (name === '_leases') {
          return Object.assign(Object.create(c), {
            updateOne: (...args: Parameters<typeof c.updateOne>) => {
              seen.leaseWrites++;
              return c.updateOne(...args);
            },
          });
        }
        return c;
      },
    });

    // The real SQLite store, counting follow loops.
    const sqlite = new SqliteEventStore({ path: ':memory:' });
    const { position: head } = await sqlite.append(
      'thing-acme/1',
      [{ id: randomUUID(), type: 't', data: {}, metadata: { org: 'acme' } }],
      'no_stream',
    );
    const follows = { started: 0, running: 0 };
    const loops: Following[] = [];
    const events: EventStore = Object.assign(Object.create(sqlite) as EventStore, {
      follow: (...args: Parameters<EventStore['follow']>) => {
        follows.started++;
        follows.running++;
        const following = sqlite.follow(...args);
        let stopped = false;
        const loop = {
          stop: async () => {
            if (stopped) return;
            stopped = true;
            await following.stop();
            follows.running--;
          },
        };
        loops.push(loop);
        return loop;
      },
    });

    const config = loadConfig({
      MONGODB_URL: mongo.url,
      MONGODB_DATABASE: database,
      DES_PROJECTOR_LEASE_MS: '300',
    });
    const metrics = new Metrics();
    const progress = new ReadModelProgress();
    const runtime = new PlatformRuntime(
      config,
      'projector',
      events,
      reads,
      new InProcessJobs(),
      [streamStatsProjection],
      [],
      metrics,
      new CommandExecutor(
        events,
        progress,
        config,
        metrics,
        new EventLogQuota(new TenantSources(config), metrics),
      ),
      progress,
      new StorageHealth(config),
    );

    // Another projector holds the lease at first: this one waits, renewing its claim.
    const other = new Lease(real, PROJECTOR_LEASE, 60_000);
    assert.equal(await other.acquire(), true);
    await runtime.onApplicationBootstrap();
    try {
      assert.equal(follows.started, 0);
      await other.release();
      await eventually(
        async () => seen.checkpointReads,
        (n) => n >= 1,
      ); // its start is under way, and stuck
      const writes = seen.leaseWrites;
      await eventually(
        async () => seen.leaseWrites,
        (n) => n >= writes + 4,
      ); // the lease was renewed several times meanwhile
      openGate();
      await eventually(
        async () => runtime.appliedPosition ?? 0,
        (p) => p >= head,
      );
      assert.deepEqual(follows, { started: 1, running: 1 }, 'one follow loop');
    } finally {
      await runtime.onApplicationShutdown();
      const leaked = follows.running;
      for (const loop of loops) await loop.stop(); // so that a failure here cannot hang the run
      assert.equal(leaked, 0, 'no follow loop left running');
    }
  });
});
