import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { until } from '#des/event-store/contract';
import { describe, it } from 'node:test';
import { EventStore, SqliteEventStore } from '#des/event-store';
import { MemoryReadStore, ReadStore } from '#des/read-store';
import { CHECKPOINTS } from './projection';
import { Projector } from './projector';
import { streamStatsProjection } from './stream-stats.projection';

/** The real memory store, whose checkpoint reads wait at a gate the test opens; counts them. */
function slowCheckpoints(memory: MemoryReadStore) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const state = { reads: 0, open };
  const store: ReadStore = Object.assign(Object.create(memory) as ReadStore, {
    collection: (name: string) => {
      const c = memory.collection(name);
      if (name !== CHECKPOINTS) return c;
      return Object.assign(Object.create(c), {
        find: async (...args: Parameters<typeof c.find>) => {
          state.reads++;
          await gate;
          return c.find(...args);
        },
      });
    },
  });
  return { store, state };
}

/** The real SQLite store, counting follow loops started and still running. */
function countingFollows(real: SqliteEventStore) {
  const follows = { started: 0, running: 0 };
  const events: EventStore = Object.assign(Object.create(real) as EventStore, {
    follow: (...args: Parameters<EventStore['follow']>) => {
      follows.started++;
      follows.running++;
      const following = real.follow(...args);
      return {
        stop: async () => {
          await following.stop();
          follows.running--;
        },
      };
    },
  });
  return { events, follows };
}

describe('Projector start and stop', () => {
  it('starts one follow loop however many starts come while a slow one is under way', async () => {
    const real = new SqliteEventStore({ path: ':memory:' });
    const { position } = await real.append(
      'thing-acme/1',
      [{ id: randomUUID(), type: 't', data: {}, metadata: {} }],
      'no_stream',
    );
    const { events, follows } = countingFollows(real);
    const { store, state } = slowCheckpoints(new MemoryReadStore());
    const projector = new Projector(events, store, [streamStatsProjection]);

    const starts = [projector.start(), projector.start(), projector.start()];
    await until(() => state.reads === 1, 10_000);
    state.open();
    await Promise.all(starts);
    await projector.start(); // already following: nothing to do
    assert.equal(await projector.waitFor(position, 5000), true);
    assert.deepEqual(follows, { started: 1, running: 1 });
    assert.equal(state.reads, 1);
    await projector.stop();
    assert.deepEqual(follows, { started: 1, running: 0 });
    await real.close();
  });

  it('a stop that comes during a slow start leaves no follow loop behind', async () => {
    const real = new SqliteEventStore({ path: ':memory:' });
    const { events, follows } = countingFollows(real);
    const { store, state } = slowCheckpoints(new MemoryReadStore());
    const projector = new Projector(events, store, [streamStatsProjection]);

    const started = projector.start();
    await until(() => state.reads === 1, 10_000);
    const stopped = projector.stop();
    state.open();
    await Promise.all([started, stopped]);
    assert.equal(projector.running, false);
    assert.deepEqual(follows, { started: 1, running: 0 });
    await real.close();
  });
});
