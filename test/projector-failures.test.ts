import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { SqliteEventStore, StoreUnavailableError } from '#des/event-store';
import {
  CHECKPOINTS,
  positionsFrom,
  Projection,
  ProjectionFailure,
  Projector,
  streamStatsProjection,
} from '#des/projections';
import { MemoryReadStore, MongoReadStore, ReadStore } from '#des/read-store';
import { Engine, mongoEngine, uniqueName } from './support/engines';
import { eventually } from './support/processes';

/** Counts per event type; throws on `poison` events while `broken.on`. */
function poisonProjection(broken: { on: boolean }, tries: Map<number, number>): Projection {
  return {
    name: 'poison',
    collections: [{ name: 'poison_counts', indexes: [] }],
    project(event) {
      if (event.type === 'poison') {
        tries.set(event.position, (tries.get(event.position) ?? 0) + 1);
        if (broken.on) throw new Error(`cannot handle event ${event.id}`);
      }
      return [{ collection: 'poison_counts', id: event.type, update: { $inc: { n: 1 } } }];
    },
  };
}

/** One document per `named` event, unique by name: a second event with a taken name is refused by the store. */
const uniqueNames: Projection = {
  name: 'unique_names',
  collections: [{ name: 'names', indexes: [{ name: 'by_name', keys: { name: 1 }, unique: true }] }],
  project(event) {
    if (event.type !== 'named') return [];
    return [{ collection: 'names', id: event.stream, update: { $set: { name: event.data.name } } }];
  },
};

interface Harness {
  events: SqliteEventStore;
  append(type: string, data?: Record<string, unknown>, stream?: string): Promise<number>;
  logged: string[];
  failures: ProjectionFailure[];
  projector(store: ReadStore, projections: Projection[]): Projector;
}

function harness(): Harness {
  const events = new SqliteEventStore({ path: ':memory:' });
  const logged: string[] = [];
  const failures: ProjectionFailure[] = [];
  return {
    events,
    logged,
    failures,
    async append(type, data = {}, stream = `thing-acme/${randomUUID()}`) {
      const r = await events.append(
        stream,
        [{ id: randomUUID(), type, data, metadata: { org: 'acme' } }],
        'any',
      );
      return r.position;
    },
    projector: (store, projections) =>
      new Projector(events, store, projections, {
        batchSize: 4,
        maxAttempts: 3,
        retryDelayMs: 5,
        logger: { log: () => undefined, error: (m) => logged.push(m) },
        onFailure: (f) => failures.push(f),
      }),
  };
}

/** A checkpoint as a reader sees it: its failure record, and its position from the positions document. */
const checkpointOf = async (
  store: ReadStore,
  name: string,
): Promise<{ position?: number; failed?: ProjectionFailure } | null> => {
  const docs = await store.collection(CHECKPOINTS).find({});
  const doc = docs.find((d) => d._id === name);
  const position = positionsFrom(docs).get(name);
  return doc || position !== undefined ? { ...doc, position } : null;
};

let mongo: Engine | undefined;
const stores: [string, () => Promise<ReadStore>][] = [
  ['memory', async () => new MemoryReadStore()],
  [
    'MongoDB wire',
    async () => {
      mongo ??= await mongoEngine();
      return new MongoReadStore({ url: mongo.url, database: uniqueName('failures') }).connect();
    },
  ],
];
after(async () => mongo?.stop());

for (const [kind, open] of stores) {
  describe(`projector: an event one projection cannot apply (SQLite + ${kind})`, () => {
    it('stops that projection only, after a few tries; the others go on; a restart retries it', async () => {
      const h = harness();
      const store = await open();
      const broken = { on: true };
      const tries = new Map<number, number>();
      const poison = poisonProjection(broken, tries);
      const before = [await h.append('ok'), await h.append('ok')];
      const bad = await h.append('poison');
      const later = [await h.append('ok'), await h.append('ok'), await h.append('ok')];
      const head = later[later.length - 1];

      const projector = h.projector(store, [streamStatsProjection, poison]);
      await projector.start();
      assert.equal(await projector.waitFor(head, 10_000), true, 'writes are not held back by it');
      assert.equal(tries.get(bad), 3, 'tried maxAttempts times');
      assert.deepEqual(
        h.failures.map((f) => [f.projection, f.position, f.eventType]),
        [['poison', bad, 'poison']],
      );
      assert.deepEqual(projector.failures, h.failures);
      assert.ok(
        h.logged.some((m) => m.includes(`projection poison stopped`) && m.includes(`log position ${bad}`)),
        h.logged.join('\n'),
      );
      // The others went on past it; it stays where it stopped, and says why.
      assert.equal((await checkpointOf(store, 'stream_stats'))?.position, head);
      const stopped = await checkpointOf(store, 'poison');
      assert.ok(((stopped?.position as number | undefined) ?? 0) < bad, JSON.stringify(stopped));
      assert.equal((stopped?.failed as ProjectionFailure).position, bad);
      assert.equal(await store.collection('stream_stats').count({}), before.length + 1 + later.length);
      // Live appends go on for the others, not for the stopped one.
      const more = await h.append('ok');
      assert.equal(await projector.waitFor(more, 10_000), true);
      assert.equal((await checkpointOf(store, 'stream_stats'))?.position, more);
      assert.equal(tries.get(bad), 3, 'a stopped projection is not tried again while running');
      await projector.stop();

      // Fixed (or transient after all): a restart retries the event, and nothing was skipped.
      broken.on = false;
      const restarted = h.projector(store, [streamStatsProjection, poison]);
      await restarted.start();
      assert.equal(await restarted.waitFor(more, 10_000), true);
      await eventually(
        () => checkpointOf(store, 'poison'),
        (c) => c?.position === more,
      );
      assert.deepEqual(restarted.failures, []);
      assert.equal((await checkpointOf(store, 'poison'))?.failed, undefined, 'its failure is cleared');
      const counts = await store.collection('poison_counts').find({}, { sort: { _id: 1 } });
      assert.deepEqual(
        counts.map((d) => [d._id, d.n]),
        [
          ['ok', before.length + later.length + 1],
          ['poison', 1],
        ],
      );
      await restarted.stop();
      await store.close();
      await h.events.close();
    });

    it('names the event whose write the read store refuses, even inside a bulk', async () => {
      const h = harness();
      const store = await open();
      await h.append('named', { name: 'a' }, 'thing-acme/1');
      await h.append('named', { name: 'b' }, 'thing-acme/2');
      const clash = await h.append('named', { name: 'a' }, 'thing-acme/3');
      const head = await h.append('named', { name: 'c' }, 'thing-acme/4');

      const projector = h.projector(store, [streamStatsProjection, uniqueNames]);
      await projector.start();
      assert.equal(await projector.waitFor(head, 10_000), true);
      assert.deepEqual(
        h.failures.map((f) => [f.projection, f.position]),
        [['unique_names', clash]],
      );
      assert.match(h.failures[0].error, /Duplicate key/);
      assert.equal((await checkpointOf(store, 'stream_stats'))?.position, head);
      await projector.stop();
      await store.close();
      await h.events.close();
    });
  });
}

describe('projector: a read-store outage is not a poison event', () => {
  it('retries the batch for every projection until the store is back, and stops none', async () => {
    const h = harness();
    const memory = new MemoryReadStore();
    let outage = true;
    let refused = 0;
    // The real memory store, unreachable for writes while `outage` holds.
    const store: ReadStore = Object.assign(Object.create(memory) as ReadStore, {
      collection: (name: string) => {
        const c = memory.collection(name);
        return Object.assign(Object.create(c), {
          bulkUpdate: async (...args: Parameters<typeof c.bulkUpdate>) => {
            if (outage) {
              refused++;
              throw new StoreUnavailableError('MongoDB', new Error('connection refused'));
            }
            return c.bulkUpdate(...args);
          },
          insertOnce: async (...args: Parameters<typeof c.insertOnce>) => {
            if (outage) {
              refused++;
              throw new StoreUnavailableError('MongoDB', new Error('connection refused'));
            }
            return c.insertOnce(...args);
          },
        });
      },
    });
    const head = await h.append('ok');
    const projector = h.projector(store, [streamStatsProjection]);
    await projector.start();
    await eventually(
      async () => refused,
      (n) => n > 10,
    );
    assert.equal(projector.position, 0, 'nothing applied during the outage');
    outage = false;
    assert.equal(await projector.waitFor(head, 10_000), true);
    assert.deepEqual(h.failures, [], 'an outage stops no projection');
    assert.equal(await memory.collection('stream_stats').count({}), 1);
    await projector.stop();
    await h.events.close();
  });
});
