import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { appendSize } from './append-size';
import { EventTooLargeError, StoreUnavailableError, WrongExpectedRevisionError } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store';
import { canonicalTextOf } from './canonical-text';

const event = (type: string) => ({ id: randomUUID(), type, data: {}, metadata: {} });

/** What `work` answers, and how many turns the event loop had while it ran. */
async function withLoopTurns<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work();
  running = false;
  return { value, turns };
}

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

  it('gives each event read back the size its append counted, from the stored text', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const events = [
      { ...event('a'), data: { text: 'naïve ☃', n: [1, 2] } },
      { ...event('bb'), metadata: { org: 'acme' } },
    ];
    await store.append('s-acme/w', events, 'no_stream');
    const read = await store.readStream('s-acme/w');
    assert.deepEqual(
      read.map((e) => e.size),
      events.map((e) => appendSize([e])),
    );
    assert.deepEqual(
      (await store.readAll(0, 10)).map((e) => e.size),
      events.map((e) => appendSize([e])),
    );
    await store.close();
  });

  it('ends a readAll batch once it holds about 1 MiB of events, and always gives at least one', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const large = () => ({ ...event('large'), data: { blob: 'x'.repeat(600_000) } });
    for (let i = 0; i < 3; i++) await store.append(`s-acme/big-${i}`, [large()], 'no_stream');
    await store.append('s-acme/small', [event('a'), event('b')], 'no_stream');
    const batches: string[][] = [];
    for (let after = 0; ;) {
      const batch = await store.readAll(after, 10);
      if (batch.length === 0) break;
      batches.push(batch.map((e) => e.type));
      after = batch.at(-1)!.position;
    }
    assert.deepEqual(batches, [
      ['large', 'large'],
      ['large', 'a', 'b'],
    ]);
    assert.equal((await store.readAll(0, 1)).length, 1, 'the limit still holds');
    await store.close();
  });

  it('reads a long stream of large events a slice at a time, giving the event loop turns between; close() ends a read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'des-sliced-'));
    const store = new SqliteEventStore({ path: join(dir, 'events.db'), readSliceMs: 0 });
    const events = Array.from({ length: 5 }, (_, i) => ({
      ...event(`e${i}`),
      data: { blob: 'x'.repeat(300_000) },
    }));
    for (const [i, e] of events.entries())
      await store.append('s-acme/long', [e], i === 0 ? 'no_stream' : i - 1);
    const { value: read, turns } = await withLoopTurns(() => store.readStreamsByPrefix('s-acme/'));
    assert.deepEqual(
      read.map((e) => [e.type, e.data]),
      events.map((e) => [e.type, e.data]),
    );
    assert.ok(turns >= 4, `the loop had ${turns} turns during a read of 5 events of 300 kB`);

    const interrupted = assert.rejects(store.readStream('s-acme/long'), /the event store is closed/);
    await store.close();
    await interrupted;
  });

  it('reads large events after a small one a few at a time: the small one does not size the next read', async () => {
    const store = new SqliteEventStore({ path: ':memory:', readSliceMs: 0 });
    await store.append('s-acme/trail', [event('started')], 'no_stream');
    for (let i = 1; i <= 8; i++)
      await store.append('s-acme/trail', [{ ...event(`e${i}`), data: { blob: 'x'.repeat(300_000) } }], i - 1);
    const { value: read, turns } = await withLoopTurns(() => store.readStream('s-acme/trail'));
    assert.equal(read.length, 9);
    assert.ok(
      turns >= 6,
      `the loop had ${turns} turns during a read of 8 events of 300 kB after a small one`,
    );
    await store.close();
  });

  it('reads a stream and a prefix from a range of the stream index, never by scanning the table', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    const plans = store.queryPlans();
    assert.deepEqual(plans.prefix, [
      'SEARCH events USING COVERING INDEX events_by_stream_time (stream>? AND stream<?)',
    ]);
    assert.deepEqual(plans.stream, [
      'SEARCH events USING COVERING INDEX events_by_stream_time (stream=? AND revision>?)',
    ]);
    await store.close();
  });

  it('counts the index entries a read visits and the rows it fetches; a stream read stops at its bound', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    for (let i = 0; i < 10; i++) await store.append(`s-acme/${i % 2}`, [event(`e${i}`)], 'any');
    const cost = async (read: () => Promise<unknown[]>) => {
      const before = store.readStats().recordsRead;
      const found = (await read()).length;
      return [found, store.readStats().recordsRead - before];
    };
    const [third] = (await store.readStream('s-acme/0')).slice(2);
    assert.deepEqual(await cost(() => store.readStream('s-acme/0')), [5, 5 + 5]);
    // Three entries taken, the fourth seen past the bound: the fifth is never visited.
    assert.deepEqual(await cost(() => store.readStream('s-acme/0', { untilPosition: third.position })), [
      3,
      4 + 3,
    ]);
    assert.deepEqual(await cost(() => store.readStream('s-acme/0', { maxCount: 2 })), [2, 2 + 2]);
    // A prefix's range is in name order: every entry of it is visited, then the rows within the bound fetched.
    assert.deepEqual(
      await cost(() => store.readStreamsByPrefix('s-acme/', { untilPosition: third.position })),
      [5, 10 + 5],
    );
    assert.deepEqual(await cost(() => store.readStreamsByPrefix('s-other/')), [0, 0]);
    assert.deepEqual(await cost(() => store.readAll(0, 4)), [4, 4]);
    // readRecent answers what this process appended last as it was written: no row is read.
    assert.deepEqual(await cost(() => store.readRecent(0, 4)), [4, 0]);
    assert.equal(await store.catchUpIndex(), (await store.head()).position, 'every commit keeps the index');
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

  it('acknowledges an append only once it is durable: WAL with synchronous=FULL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'des-durable-'));
    const store = new SqliteEventStore({ path: join(dir, 'events.db') });
    assert.deepEqual(await store.durability(), { journalMode: 'wal', synchronous: 2 });
    await store.close();
  });

  it('commits concurrent appends together, and a conflicting one fails alone', async () => {
    const store = new SqliteEventStore({ path: ':memory:' });
    await store.append('s-acme/taken', [event('first')], 'no_stream');
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 20 }, (_, i) =>
        store.append(`s-acme/g${i}`, [event('a'), event('b')], 'no_stream'),
      ),
      store.append('s-acme/taken', [event('late')], 'no_stream'),
    ]);
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 20);
    assert.ok(
      outcomes[20].status === 'rejected' && outcomes[20].reason instanceof WrongExpectedRevisionError,
    );
    const positions = outcomes
      .slice(0, 20)
      .map((o) => (o as PromiseFulfilledResult<{ position: number }>).value.position);
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
      'positions in call order',
    );
    assert.equal((await store.readAll(0, 100)).length, 41);
    assert.equal((await store.readStream('s-acme/taken')).length, 1);
    await store.close();
  });
});

describe('SqliteEventStore limits and outages', () => {
  it('takes an append of exactly maxAppendSize bytes and refuses one byte more', async () => {
    const store = new SqliteEventStore({ path: ':memory:', maxAppendSize: 2000 });
    const sized = (bytes: number) => {
      const e = { ...event('sized'), data: { blob: '' } };
      e.data.blob = 'x'.repeat(bytes - appendSize([e]));
      return e;
    };
    await store.append('s-acme/l', [sized(2000)], 'no_stream');
    await assert.rejects(store.append('s-acme/l', [sized(2001)], 0), (error: unknown) => {
      assert.ok(error instanceof EventTooLargeError);
      assert.deepEqual([error.size, error.limit], [2001, 2000]);
      return true;
    });
    assert.equal((await store.readStream('s-acme/l')).length, 1);
    await store.close();
  });

  it('counts bytes, not characters, as KurrentDB does', () => {
    const e = { id: randomUUID(), type: 'tëst', data: { v: 'é' }, metadata: {} };
    // data {"v":"é"} = 10 bytes, metadata {} = 2, type 4 characters × 2 = 8
    assert.equal(appendSize([e]), 20);
  });

  it('answers StoreUnavailableError when another process holds the write lock past the busy timeout', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'des-busy-')), 'events.db');
    const store = new SqliteEventStore({ path, busyTimeoutMs: 50 });
    const other = new Database(path);
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      await assert.rejects(store.append('s-acme/busy', [event('t')], 'any'), StoreUnavailableError);
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    await store.append('s-acme/busy', [event('t')], 'any');
    await store.close();
    await assert.rejects(store.readAll(0, 1), StoreUnavailableError);
  });
});

describe('SqliteEventStore writer thread', () => {
  it('commits off the event loop: a commit waiting a second on a lock leaves the loop serving', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'des-writer-')), 'events.db');
    const store = new SqliteEventStore({ path, busyTimeoutMs: 1000 });
    await store.append('s-acme/w', [event('first')], 'no_stream');
    const other = new Database(path);
    other.prepare('BEGIN IMMEDIATE').run();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    try {
      // The commit waits out busy_timeout on its own thread; on this one it held the loop for all of it.
      await assert.rejects(store.append('s-acme/w', [event('t')], 0), StoreUnavailableError);
      assert.ok(ticks >= 10, `the event loop ticked ${ticks} times while the commit waited`);
    } finally {
      clearInterval(ticker);
      other.prepare('ROLLBACK').run();
      other.close();
    }
    const after = await store.append('s-acme/w', [event('t')], 0);
    assert.equal(after.nextRevision, 1);
    assert.equal((await store.readStream('s-acme/w')).length, 2, 'read back on the reading connection');
    await store.close();
  });

  it('commits concurrent appends across the thread in call order, and refuses appends once closed', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'des-writer-')), 'events.db');
    const store = new SqliteEventStore({ path });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.append(`s-acme/o${i}`, [event('a')], 'no_stream')),
    );
    const positions = results.map((r) => r.position);
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
    );
    const instants = results.map((r) => r.recordedAt);
    assert.deepEqual(
      instants,
      [...instants].sort((a, b) => a - b),
      'recorded_at never decreases',
    );
    await store.close();
    await assert.rejects(store.append('s-acme/late', [event('a')], 'any'), StoreUnavailableError);
  });
});

describe('SqliteEventStore logs written before the hash chain was retired (ADR 0026)', () => {
  it('opens a log holding the chain columns and its heads, and appends to it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'des-chained-')), 'events.db');
    const old = new Database(path);
    old.exec(`CREATE TABLE events (
      position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL,
      revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
      recorded_at INTEGER NOT NULL, org TEXT NOT NULL DEFAULT '', hash TEXT NOT NULL DEFAULT '',
      UNIQUE (stream, revision));
      CREATE TABLE chain_heads (org TEXT PRIMARY KEY, position INTEGER NOT NULL, hash TEXT NOT NULL);`);
    old
      .prepare(
        'INSERT INTO events (event_id, stream, revision, type, data, metadata, recorded_at, org, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        randomUUID(),
        'flow-acme/a',
        0,
        'flow_created',
        '{"n":1}',
        '{"org":"acme"}',
        1_000,
        'acme',
        'ab'.repeat(32),
      );
    old.close();
    const store = new SqliteEventStore({ path });
    await store.append(
      'flow-acme/a',
      [{ id: randomUUID(), type: 'flow_updated', data: { n: 2 }, metadata: { org: 'acme' } }],
      0,
    );
    const events = await store.readStream('flow-acme/a');
    assert.deepEqual(
      events.map((e) => [e.revision, e.type, e.data]),
      [
        [0, 'flow_created', { n: 1 }],
        [1, 'flow_updated', { n: 2 }],
      ],
    );
    assert.ok(
      events.every((e) => !('hash' in e)),
      'no chain is read or written any more',
    );
    await store.close();
  });
});

describe('SqliteEventStore live follower', () => {
  /** Follows a store, collecting every event handed over; `seen(n)` resolves once n have arrived. */
  function collect(store: SqliteEventStore) {
    const got: { position: number; type: string; data: unknown }[] = [];
    const waiting: { n: number; resolve: () => void }[] = [];
    const following = store.follow(0, async (batch) => {
      got.push(...batch.map((e) => ({ position: e.position, type: e.type, data: e.data })));
      for (const w of waiting.filter((w) => got.length >= w.n)) w.resolve();
    });
    const seen = (n: number) =>
      got.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }));
    return { got, seen, following };
  }

  it('is handed what this process appended as written, without reading it back from the log', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'des-follow-')), 'events.db');
    const store = new SqliteEventStore({ path });
    const { got, seen, following } = collect(store);
    await seen(0);
    const before = store.readStats().recordsRead;
    for (let i = 0; i < 20; i++) {
      await store.append('s-acme/x', [{ ...event('noted'), data: { i, text: 'ä☃' } }], 'any');
      await seen(i + 1);
    }
    await following.stop();
    assert.equal(store.readStats().recordsRead - before, 0, 'nothing was read back from the log');
    assert.deepEqual(
      got.map((e) => e.data),
      Array.from({ length: 20 }, (_, i) => ({ i, text: 'ä☃' })),
    );
    const reopened = new SqliteEventStore({ path });
    assert.deepEqual(
      got,
      (await reopened.readAll(0, 100)).map((e) => ({ position: e.position, type: e.type, data: e.data })),
      'as the log holds them',
    );
    await reopened.close();
    await store.close();
  });

  it('reads from the log what another process appended in between, each event once and in order', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'des-follow-')), 'events.db');
    const store = new SqliteEventStore({ path, pollMs: 20 });
    const other = new SqliteEventStore({ path });
    const { got, seen, following } = collect(store);
    for (let i = 0; i < 10; i++) {
      await store.append('s-acme/mine', [event(`mine-${i}`)], 'any');
      await other.append('s-acme/theirs', [event(`theirs-${i}`), event(`theirs-${i}b`)], 'any');
    }
    await seen(30);
    await following.stop();
    assert.deepEqual(
      got.map((e) => e.position),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      got.map((e) => e.type),
      (await store.readAll(0, 100)).map((e) => e.type),
    );
    await other.close();
    await store.close();
  });

  it('answers readRecent as the log holds it: past what this process wrote when another appended after', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'des-follow-')), 'events.db');
    const store = new SqliteEventStore({ path });
    const other = new SqliteEventStore({ path });
    const data = { z: 1, a: [3, { y: 'ä☃', b: null }], '10': true, '9': -0, e: 1e21 };
    await store.append('s-acme/mine', [{ ...event('mine'), data }], 'any');
    await other.append('s-acme/theirs', [event('theirs')], 'any');
    const read = await store.readRecent(0, 10);
    assert.deepEqual(
      read.map((e) => e.type),
      ['mine', 'theirs'],
    );
    const [fromLog] = await other.readAll(0, 1);
    assert.deepEqual(read[0], fromLog);
    assert.equal(canonicalTextOf(read[0]), canonicalTextOf(fromLog), 'the leaf text is the same');
    await other.close();
    await store.close();
  });

  it('gives each follower values of its own, parsed from the stored text (as read back), never the appended objects', async () => {
    const store = new SqliteEventStore({
      path: join(mkdtempSync(join(tmpdir(), 'des-follow-')), 'events.db'),
    });
    const first = collect(store);
    const second = collect(store);
    await Promise.all([first.seen(0), second.seen(0)]);
    const data = { when: new Date(0), gone: undefined, pods: [{ pod: 'p', created_at: 1 }] };
    for (let i = 0; i < 5; i++) {
      await store.append('s-acme/x', [{ ...event('noted'), data }], 'any');
      await Promise.all([first.seen(i + 1), second.seen(i + 1)]);
    }
    await Promise.all([first.following.stop(), second.following.stop()]);
    const stored = { when: '1970-01-01T00:00:00.000Z', pods: [{ pod: 'p', created_at: 1 }] };
    for (const [i, got] of first.got.entries()) {
      assert.deepEqual(got.data, stored);
      assert.deepEqual(second.got[i].data, stored);
      assert.notEqual(got.data, second.got[i].data, 'each follower has its own objects');
      assert.notEqual(got.data, data);
    }
    await store.close();
  });

  it('hands a replayed append (the same event ids) over once, as the log holds it', async () => {
    const store = new SqliteEventStore({
      path: join(mkdtempSync(join(tmpdir(), 'des-follow-')), 'events.db'),
    });
    const { got, seen, following } = collect(store);
    const once = event('once');
    await store.append('s-acme/r', [once], 'any');
    await store.append('s-acme/r', [{ ...once, data: { changed: true } }], 'any');
    await store.append('s-acme/r', [event('after')], 'any');
    await seen(2);
    await following.stop();
    assert.deepEqual(
      got.map((e) => [e.position, e.type, e.data]),
      [
        [1, 'once', {}],
        [2, 'after', {}],
      ],
    );
    await store.close();
  });
});
