import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { SqliteEventStore } from './sqlite-event-store';

const event = (type: string) => ({ id: randomUUID(), type, data: {}, metadata: {} });

describe('SqliteEventStore recorded_at', () => {
  it('never decreases when the wall clock steps back', async () => {
    const clock = [5_000_000, 9_000_000, 7_000_000, 7_000_000, 12_000_000];
    let i = 0;
    const store = new SqliteEventStore({ path: ':memory:', clock: () => clock[i++] });
    for (const _ of clock) await store.append('s-acme/x', [event('t')], 'any');
    const stored = await store.readStream('s-acme/x');
    assert.deepEqual(
      stored.map((e) => e.recordedAt),
      [5_000_000, 9_000_000, 9_000_000, 9_000_000, 12_000_000],
    );
    await store.close();
  });

  it('gives every event of one append the same commit instant', async () => {
    const store = new SqliteEventStore({ path: ':memory:', clock: () => 42 });
    await store.append('s-acme/y', [event('a'), event('b')], 'no_stream');
    const [a, b] = await store.readStream('s-acme/y');
    assert.equal(a.recordedAt, b.recordedAt);
    assert.equal(b.position, a.position + 1);
    await store.close();
  });

  it('refuses a half-known batch of event ids instead of writing part of it', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const known = event('a');
    await store.append('s-acme/z', [known], 'no_stream');
    await assert.rejects(store.append('s-acme/z', [known, event('b')], 0));
    assert.equal((await store.readStream('s-acme/z')).length, 1);
    await store.close();
  });
});
