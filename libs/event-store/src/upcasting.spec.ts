import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { SqliteEventStore } from './sqlite-event-store';
import { SCHEMA_VERSION, type Upcaster, UpcastingEventStore } from './upcasting';

const secondsToMicros: Upcaster = {
  type: 'thing_happened',
  from: 1,
  upcast: (d) => ({ ...d, at: Math.round(Number(d.at) * 1_000_000) }),
};
const renamed: Upcaster = {
  type: 'thing_happened',
  from: 2,
  upcast: ({ at, ...rest }) => ({ ...rest, happened_at: at }),
};
const event = (data: Record<string, unknown>, metadata: Record<string, unknown> = { org: 'acme' }) => ({
  id: randomUUID(),
  type: 'thing_happened',
  data,
  metadata,
});

describe('UpcastingEventStore: old events read in the current schema, the log as written', () => {
  it('upcasts an event written at schema 1 through every step, on every read', async () => {
    const raw = new SqliteEventStore({ path: ':memory:' });
    await raw.append('thing-acme/1', [event({ at: 1.5 })], 'no_stream');
    const store = new UpcastingEventStore(raw, [renamed, secondsToMicros]);
    const expected = { happened_at: 1_500_000 };
    assert.deepEqual((await store.readStream('thing-acme/1'))[0].data, expected);
    assert.deepEqual((await store.readAll(0, 10))[0].data, expected);
    assert.deepEqual((await store.readStreamsByPrefix('thing-acme/'))[0].data, expected);
    const followed = await new Promise<Record<string, unknown>>((resolve) => {
      const following = store.follow(0, async ([first]) => {
        resolve(first.data);
        void following.stop();
      });
    });
    assert.deepEqual(followed, expected);
    assert.deepEqual((await raw.readAll(0, 10))[0].data, { at: 1.5 }, 'the stored event is unchanged');
    await store.close();
  });

  it('stamps appends with the current version, and leaves current events and other types alone', async () => {
    const raw = new SqliteEventStore({ path: ':memory:' });
    const store = new UpcastingEventStore(raw, [secondsToMicros, renamed]);
    assert.equal(store.versionOf('thing_happened'), 3);
    assert.equal(store.versionOf('other_thing'), 1);
    await store.append('thing-acme/2', [event({ happened_at: 7 })], 'no_stream');
    await store.append('other-acme/1', [{ ...event({ at: 2 }), type: 'other_thing' }], 'no_stream');
    const [stored, other] = await raw.readAll(0, 10);
    assert.equal(stored.metadata[SCHEMA_VERSION], 3);
    assert.equal(other.metadata[SCHEMA_VERSION], undefined);
    const [read, otherRead] = await store.readAll(0, 10);
    assert.deepEqual(read.data, { happened_at: 7 });
    assert.deepEqual(otherRead.data, { at: 2 });
    // Written at schema 2 (seconds already converted): only the rename applies.
    await raw.append('thing-acme/3', [event({ at: 9 }, { org: 'acme', [SCHEMA_VERSION]: 2 })], 'no_stream');
    assert.deepEqual((await store.readStream('thing-acme/3'))[0].data, { happened_at: 9 });
    await store.close();
  });

  it("counts what the inner store read and keeps the inner store's index", async () => {
    const raw = new SqliteEventStore({ path: ':memory:' });
    const store = new UpcastingEventStore(raw, [secondsToMicros, renamed]);
    await store.append('thing-acme/4', [event({ at: 1 }), event({ at: 2 })], 'no_stream');
    const before = store.readStats().recordsRead;
    await store.readStreamsByPrefix('thing-acme/');
    assert.equal(store.readStats().recordsRead - before, 4, 'two index entries, two rows');
    assert.deepEqual(store.readStats(), raw.readStats());
    assert.equal(await store.catchUpIndex(), (await raw.head()).position);
    await store.keepIndex().stop();
    await store.close();
  });

  it('refuses a chain with a missing or a repeated step', () => {
    const raw = new SqliteEventStore({ path: ':memory:' });
    assert.throws(() => new UpcastingEventStore(raw, [renamed]), /no upcaster from version 1/);
    assert.throws(
      () => new UpcastingEventStore(raw, [secondsToMicros, secondsToMicros]),
      /two upcasters of thing_happened from version 1/,
    );
  });
});
