import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { appendSize, eventSize } from './append-size';
import {
  EventStore,
  EventToAppend,
  EventTooLargeError,
  ReadStreamOptions,
  StoreUnavailableError,
  StoredEvent,
  WrongExpectedRevisionError,
} from './event-store.port';

const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: { org: 'acme', actor: { kind: 'user', name: 'tester' }, correlation_id: randomUUID() },
});

/** Names may contain '-', '.', '~'; '/' separates org and id. */
const streamName = (aggregate = 'trail') => `${aggregate}-acme/back.end-${randomUUID().slice(0, 8)}~1`;

export interface ContractOptions {
  /** A store of this adapter whose engine cannot be reached (SQLite: closed; KurrentDB: nothing listening). */
  openUnreachable?: () => Promise<EventStore>;
}

/** The one contract every event store adapter passes. */
export function eventStoreContract(
  name: string,
  open: () => Promise<EventStore>,
  options: ContractOptions = {},
): void {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    before(async () => {
      store = await open();
    });
    after(async () => {
      await store.close();
    });

    it('appends to a new stream and reads it back in revision order', async () => {
      const stream = streamName();
      const events = [event('trail_reported', { name: 'main' }), event('artifact_reported', { n: 1 })];
      const result = await store.append(stream, events, 'no_stream');
      assert.equal(result.nextRevision, 1);
      const read = await store.readStream(stream);
      assert.deepEqual(
        read.map((e) => [e.stream, e.revision, e.id, e.type, e.data, e.metadata]),
        events.map((e, i) => [stream, i, e.id, e.type, e.data, e.metadata]),
      );
      assert.equal(read[1].position, result.position);
      assert.ok(read[0].position < read[1].position);
    });

    it('reads one page of a stream: from a revision, at most maxCount events, still bounded by the instant', async () => {
      const stream = streamName();
      const first = await store.append(
        stream,
        [0, 1, 2, 3, 4].map((i) => event('tick', { i })),
        'no_stream',
      );
      await store.append(stream, [event('tick', { i: 5 })], first.nextRevision);
      const page = await store.readStream(stream, { fromRevision: 2, maxCount: 2 });
      assert.deepEqual(
        page.map((e) => [e.revision, e.data.i]),
        [
          [2, 2],
          [3, 3],
        ],
      );
      const beforeLast = await store.readStream(stream, {
        fromRevision: 3,
        maxCount: 10,
        untilPosition: first.position,
      });
      assert.deepEqual(
        beforeLast.map((e) => e.revision),
        [3, 4],
      );
      assert.deepEqual(await store.readStream(stream, { fromRevision: 6, maxCount: 2 }), []);
    });

    it('refuses an append whose expected revision is stale', async () => {
      const stream = streamName();
      await store.append(stream, [event('a')], 'no_stream');
      await assert.rejects(store.append(stream, [event('b')], 'no_stream'), WrongExpectedRevisionError);
      await assert.rejects(store.append(stream, [event('b')], 5), WrongExpectedRevisionError);
      await assert.rejects(
        store.append(streamName(), [event('b')], 'stream_exists'),
        WrongExpectedRevisionError,
      );
      const ok = await store.append(stream, [event('b')], 0);
      assert.equal(ok.nextRevision, 1);
      const any = await store.append(stream, [event('c')], 'any');
      assert.equal(any.nextRevision, 2);
      assert.equal((await store.readStream(stream)).length, 3);
    });

    it('is idempotent by event id', async () => {
      const stream = streamName();
      const events = [event('a'), event('b')];
      const first = await store.append(stream, events, 'no_stream');
      const again = await store.append(stream, events, 'no_stream');
      assert.equal(again.nextRevision, first.nextRevision);
      assert.equal(again.position, first.position);
      assert.equal((await store.readStream(stream)).length, 2);
    });

    it('reads an unknown stream as empty', async () => {
      assert.deepEqual(await store.readStream(streamName('nothing')), []);
    });

    it('reads the log after a position, in order, with a limit', async () => {
      const start = (await store.head()).position;
      const stream = streamName();
      await store.append(stream, [event('a'), event('b'), event('c')], 'no_stream');
      await store.append(streamName(), [event('d')], 'no_stream');
      const all = (await store.readAll(start, 100)).filter((e) => e.position > start);
      const ours = all.filter((e) => ['a', 'b', 'c', 'd'].includes(e.type)).map((e) => e.type);
      assert.deepEqual(ours.slice(-4), ['a', 'b', 'c', 'd']);
      const limited = await store.readAll(start, 2);
      assert.equal(limited.length, 2);
      assert.ok(limited.every((e) => e.position > start));
    });

    it('resumes the log in the middle of a multi-event append', async () => {
      const stream = streamName();
      await store.append(stream, [event('m1'), event('m2'), event('m3')], 'no_stream');
      const [first] = await store.readStream(stream);
      const rest = await store.readAll(first.position, 2);
      assert.deepEqual(
        rest.map((e) => e.type),
        ['m2', 'm3'],
      );
    });

    it('keeps the global position strictly increasing and recorded_at never decreasing', async () => {
      const start = (await store.head()).position;
      for (let i = 0; i < 20; i++)
        await store.append(streamName(), [event('tick'), event('tock')], 'no_stream');
      const log = await store.readAll(start, 1000);
      assert.ok(log.length >= 40);
      for (let i = 1; i < log.length; i++) {
        assert.ok(log[i].position > log[i - 1].position, 'position increases');
        assert.ok(log[i].recordedAt >= log[i - 1].recordedAt, 'recorded_at never decreases');
      }
      const head = await store.head();
      assert.equal(head.position, log[log.length - 1].position);
    });

    it('reads a stream as it was at an instant', async () => {
      const stream = streamName();
      const first = await store.append(stream, [event('before')], 'no_stream');
      await new Promise((r) => setTimeout(r, 5));
      await store.append(stream, [event('after')], 0);
      const atFirst = await store.readStream(stream, { untilRecordedAt: first.recordedAt });
      assert.deepEqual(
        atFirst.map((e) => e.type),
        ['before'],
      );
      assert.deepEqual(await store.readStream(stream, { untilRecordedAt: first.recordedAt - 1_000_000 }), []);
      assert.equal((await store.readStream(stream, { fromRevision: 1 }))[0].type, 'after');
    });

    it('finds the last event recorded at or before an instant', async () => {
      const first = await store.append(streamName(), [event('one')], 'no_stream');
      await new Promise((r) => setTimeout(r, 5));
      const second = await store.append(streamName(), [event('two')], 'no_stream');
      assert.deepEqual(await store.positionAt(first.recordedAt), {
        position: first.position,
        recordedAt: first.recordedAt,
      });
      assert.deepEqual(await store.positionAt(second.recordedAt - 1), {
        position: first.position,
        recordedAt: first.recordedAt,
      });
      assert.equal((await store.positionAt(second.recordedAt + 1_000_000)).position, second.position);
      assert.deepEqual(await store.positionAt(0), { position: 0, recordedAt: 0 });
    });

    it('reads every stream under a prefix, in position order, up to an instant', async () => {
      const base = streamName();
      const a = `${base}/a`;
      const b = `${base}/b`;
      await store.append(a, [event('a1')], 'no_stream');
      const mid = await store.append(b, [event('b1')], 'no_stream');
      await new Promise((r) => setTimeout(r, 5));
      await store.append(a, [event('a2')], 0);
      await store.append(`${base}x/other`, [event('not-under-the-prefix')], 'no_stream');
      const all = await store.readStreamsByPrefix(`${base}/`);
      assert.deepEqual(
        all.map((e) => [e.stream, e.type]),
        [
          [a, 'a1'],
          [b, 'b1'],
          [a, 'a2'],
        ],
      );
      assert.deepEqual(
        (await store.readStreamsByPrefix(`${base}/`, { untilRecordedAt: mid.recordedAt })).map((e) => e.type),
        ['a1', 'b1'],
      );
      assert.deepEqual(
        (await store.readStreamsByPrefix(`${base}/`, { untilPosition: mid.position })).map((e) => e.type),
        ['a1', 'b1'],
      );
      assert.deepEqual(await store.readStreamsByPrefix(`${streamName()}/`), []);
    });

    it('reads a scope through its index: exactly its events, now and in the past, reading none of the many outside it', async (t) => {
      await assertPrefixReadsStayInScope(store, (line) => t.diagnostic(line));
    });

    it('lets exactly one of many racing appends with the same expected revision win', async () => {
      const stream = streamName();
      await store.append(stream, [event('base')], 'no_stream');
      const racers = Array.from({ length: 12 }, (_, i) => [
        event('racer', { i }),
        event('racer_tail', { i }),
      ]);
      const results = await Promise.allSettled(racers.map((events) => store.append(stream, events, 0)));
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ i, result: r.value }] : []));
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      assert.equal(won.length, 1, 'exactly one racer wins');
      assert.equal(lost.length, racers.length - 1);
      for (const reason of lost) {
        assert.ok(reason instanceof WrongExpectedRevisionError, String(reason));
        assert.equal(reason.actual, 2);
      }
      assert.equal(won[0].result.nextRevision, 2);
      const read = await store.readStream(stream);
      assert.deepEqual(
        read.map((e) => [e.revision, e.type, e.data.i]),
        [
          [0, 'base', undefined],
          [1, 'racer', won[0].i],
          [2, 'racer_tail', won[0].i],
        ],
      );
      assert.equal(read[2].position, won[0].result.position);
    });

    it('gives racing appends with `any` contiguous revisions, each append in one piece', async () => {
      const stream = streamName();
      const appends = Array.from({ length: 10 }, (_, i) => [event('pair_a', { i }), event('pair_b', { i })]);
      const results = await Promise.all(appends.map((events) => store.append(stream, events, 'any')));
      const read = await store.readStream(stream);
      assert.deepEqual(
        read.map((e) => e.revision),
        Array.from({ length: 20 }, (_, i) => i),
      );
      for (let r = 0; r < read.length; r += 2) {
        assert.deepEqual([read[r].type, read[r + 1].type], ['pair_a', 'pair_b']);
        assert.equal(read[r].data.i, read[r + 1].data.i, 'one append stays together');
      }
      assert.deepEqual(
        results.map((r) => r.nextRevision).sort((a, b) => a - b),
        Array.from({ length: 10 }, (_, i) => 2 * i + 1),
      );
    });

    it('is a no-op, answering the first append, for the same ids with the same exact expected revision, also after the stream moved on, and with `any`', async () => {
      const stream = streamName();
      await store.append(stream, [event('first')], 'no_stream');
      const batch = [event('a'), event('b')];
      const first = await store.append(stream, batch, 0);
      const again = await store.append(stream, batch, 0);
      assert.deepEqual(again, first);
      await store.append(stream, [event('later')], first.nextRevision);
      const exact = await store.append(stream, batch, 0);
      assert.deepEqual([exact.nextRevision, exact.position], [first.nextRevision, first.position]);
      const any = await store.append(stream, batch, 'any');
      assert.deepEqual([any.nextRevision, any.position], [first.nextRevision, first.position]);
      assert.deepEqual(
        (await store.readStream(stream)).map((e) => e.type),
        ['first', 'a', 'b', 'later'],
      );
    });

    it('appends an event just under the size limit and refuses one over it, appending nothing', async () => {
      const limit = store.maxAppendSize;
      /** An event whose size, as the stores count it, is exactly `bytes`. */
      const sized = (bytes: number): EventToAppend => {
        const e = event('large_event', { blob: '' });
        e.data = { blob: 'x'.repeat(bytes - appendSize([e])) };
        assert.equal(appendSize([e]), bytes);
        return e;
      };
      const stream = streamName();
      const under = sized(limit - 1024);
      await store.append(stream, [under], 'no_stream');
      const [stored] = await store.readStream(stream);
      assert.equal(stored.data.blob, under.data.blob);
      await assert.rejects(store.append(stream, [sized(limit + 1)], 0), (error: unknown) => {
        assert.ok(error instanceof EventTooLargeError, String(error));
        assert.equal(error.limit, limit);
        return true;
      });
      // Two events each under the limit, together over it: refused whole.
      const half = Math.ceil(limit / 2) + 1;
      await assert.rejects(store.append(stream, [sized(half), sized(half)], 0), EventTooLargeError);
      assert.equal((await store.readStream(stream)).length, 1, 'nothing more was appended');
    });

    it('asks the caller to admit the append by its size before writing; a refusal appends nothing', async () => {
      const stream = streamName();
      const events = [event('a', { text: 'é and more' }), event('b')];
      const admitted: number[] = [];
      await store.append(stream, events, 'no_stream', { admit: (bytes) => admitted.push(bytes) });
      assert.deepEqual(admitted, [appendSize(events)]);
      // What a stored event counts for, as its append counted it (the store's own count, or counted again).
      const stored = await store.readStream(stream);
      assert.deepEqual(
        stored.map((e) => eventSize(e)),
        events.map((e) => appendSize([e])),
      );
      const refusal = new Error('over quota');
      await assert.rejects(
        store.append(stream, [event('c')], 0, {
          admit: () => {
            throw refusal;
          },
        }),
        (error) => error === refusal,
      );
      assert.deepEqual(
        (await store.readStream(stream)).map((e) => e.type),
        ['a', 'b'],
        'nothing more was appended',
      );
    });

    it("records recordedAt in whole microseconds at the store's precision, and the append answers the stored instant", async () => {
      const stream = streamName();
      const appended = await store.append(stream, [event('a'), event('b')], 'no_stream');
      const read = await store.readStream(stream);
      for (const e of read) {
        assert.ok(Number.isSafeInteger(e.recordedAt), `${e.recordedAt} is an integer`);
        assert.equal(e.recordedAt % store.recordedAtPrecisionMicros, 0);
        // Microseconds, not milliseconds or nanoseconds: within a day of now.
        assert.ok(Math.abs(e.recordedAt - Date.now() * 1000) < 86_400_000_000, `${e.recordedAt} is µs`);
      }
      assert.equal(appended.recordedAt, read[1].recordedAt);
      assert.equal(appended.position, read[1].position);
    });

    it('follows from a checkpoint in the middle of the log: exactly the events after it, in order, once, in batches', async () => {
      const stream = streamName();
      const events = Array.from({ length: 9 }, (_, i) => event(`r${i}`));
      await store.append(stream, events.slice(0, 5), 'no_stream');
      await store.append(stream, events.slice(5, 7), 4);
      await store.append(stream, events.slice(7), 6);
      const checkpoint = (await store.readStream(stream))[2].position; // inside the first append
      const batches: StoredEvent[][] = [];
      const following = store.follow(checkpoint, async (batch) => void batches.push(batch), { batchSize: 2 });
      try {
        await until(() => batches.flat().some((e) => e.type === 'r8' && e.stream === stream));
        // One more event, so anything delivered twice before it would be seen.
        await store.append(stream, [event('r9')], 8);
        await until(() => batches.flat().some((e) => e.type === 'r9' && e.stream === stream));
        const all = batches.flat();
        assert.deepEqual(
          all.filter((e) => e.stream === stream).map((e) => e.type),
          ['r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9'],
        );
        assert.ok(all.every((e) => e.position > checkpoint));
        for (let i = 1; i < all.length; i++)
          assert.ok(all[i].position > all[i - 1].position, 'in order, once');
        assert.ok(
          batches.every((b) => b.length >= 1 && b.length <= 2),
          'batches of at most batchSize',
        );
        assert.ok(
          batches.some((b) => b.length === 2),
          'catch-up delivers batches, not single events',
        );
      } finally {
        await following.stop();
      }
    });

    it('batches live appends that arrive while the handler is busy', async () => {
      const start = (await store.head()).position;
      const stream = streamName();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let blocked = false;
      const batches: string[][] = [];
      const following = store.follow(
        start,
        async (batch) => {
          const ours = batch.filter((e) => e.stream === stream);
          if (ours.length > 0) batches.push(ours.map((e) => e.type));
          if (ours.some((e) => e.type === 'first')) {
            blocked = true;
            await gate;
          }
        },
        { batchSize: 50 },
      );
      // A second follower shows when the burst has reached followers.
      const witnessed: StoredEvent[] = [];
      const witness = store.follow(start, async (batch) => {
        witnessed.push(...batch.filter((e) => e.stream === stream));
      });
      try {
        await store.append(stream, [event('first')], 'no_stream');
        await until(() => blocked);
        for (let i = 0; i < 5; i++) await store.append(stream, [event(`burst${i}`)], i);
        await until(() => witnessed.length === 6);
        release();
        await until(() => batches.flat().length === 6);
        assert.deepEqual(batches, [['first'], ['burst0', 'burst1', 'burst2', 'burst3', 'burst4']]);
      } finally {
        release();
        await following.stop();
        await witness.stop();
      }
    });

    if (options.openUnreachable) {
      const openUnreachable = options.openUnreachable;
      it('answers StoreUnavailableError for every operation when its engine cannot be reached', async () => {
        const down = await openUnreachable();
        try {
          const operations: [string, () => Promise<unknown>][] = [
            ['append', () => down.append(streamName(), [event('lost')], 'any')],
            ['readStream', () => down.readStream(streamName())],
            ['readAll', () => down.readAll(0, 10)],
            ['head', () => down.head()],
            ['ping', () => down.ping()],
          ];
          for (const [what, operation] of operations) {
            await assert.rejects(operation(), StoreUnavailableError, what);
          }
          await assertFollowReportsOutage(down);
        } finally {
          await down.close();
        }
      });
    }

    it('follows the log: catches up, then delivers live appends', async () => {
      const start = (await store.head()).position;
      const stream = streamName();
      await store.append(stream, [event('e1'), event('e2')], 'no_stream');
      const seen: StoredEvent[] = [];
      const following = store.follow(start, async (batch) => {
        seen.push(...batch.filter((e) => e.stream === stream));
      });
      try {
        await until(() => seen.length === 2);
        await store.append(stream, [event('e3')], 1);
        await until(() => seen.length === 3);
        assert.deepEqual(
          seen.map((e) => e.type),
          ['e1', 'e2', 'e3'],
        );
      } finally {
        await following.stop();
      }
    });
  });
}

/**
 * A scope read through the index (`index-scopes.ts`). A log with hundreds of
 * events outside the scope `trail-<org>/web/` (a flow whose name starts like
 * it, a stream named like it without the `/`, another flow, another
 * aggregate of the organization, another organization's flow of the same
 * name) and five inside. Every read, now and at a past position or instant,
 * answers exactly the scope's events, and reads (ReadStats) at most two
 * records per event of the scope and two more: an adapter that read the log,
 * or an SQLite plan that scanned the table, reads hundreds. Only a read whose
 * bound reaches past what the index covers (`catchUpIndex`) may also read the
 * log after it, and nothing of the scope is missing from it.
 */
export async function assertPrefixReadsStayInScope(
  store: EventStore,
  report: (line: string) => void = () => undefined,
): Promise<void> {
  const org = `o${randomUUID().slice(0, 8)}`;
  const scope = `trail-${org}/web/`;
  const [one, two] = [`${scope}web-1`, `${scope}web-2`];
  const outside = [
    `trail-${org}/webshop/webshop-1`,
    `trail-${org}/web`,
    `trail-${org}/api/api-1`,
    `environment-${org}/prod`,
    `trail-x${org}/web/web-1`,
  ];
  let outsideCount = 0;
  /** Events of the organization's trails (the scope `trail-<org>/`), ours included. */
  let orgTrails = 0;
  const noise = async (appends: number) => {
    for (let i = 0; i < appends; i++) {
      const stream = outside[i % outside.length];
      const events = Array.from({ length: 10 }, (_, j) => event('noise', { i, j }));
      await store.append(stream, events, 'any');
      outsideCount += events.length;
      if (stream.startsWith(`trail-${org}/`)) orgTrails += events.length;
    }
  };
  const ours = [0, 1, 2, 3, 4].map((n) => event('in_scope', { n }));
  await noise(20);
  const first = await store.append(one, ours.slice(0, 2), 'no_stream');
  await noise(20);
  const second = await store.append(two, [ours[2]], 'no_stream');
  await new Promise((r) => setTimeout(r, 5));
  await noise(20);
  const third = await store.append(one, [ours[3]], first.nextRevision);
  await noise(20);
  const covered = await store.catchUpIndex();
  assert.ok(covered >= third.position, 'the index covers the log as it was');

  const read = async (prefix: string, options?: Omit<ReadStreamOptions, 'fromRevision'>) => {
    const before = store.readStats().recordsRead;
    const events = await store.readStreamsByPrefix(prefix, options);
    const cost = store.readStats().recordsRead - before;
    for (let i = 1; i < events.length; i++) assert.ok(events[i].position > events[i - 1].position);
    return { events, cost };
  };
  const inScope = async (
    what: string,
    options: Omit<ReadStreamOptions, 'fromRevision'> | undefined,
    expected: number[],
    most: number,
  ) => {
    const { events, cost } = await read(scope, options);
    assert.deepEqual(
      events.map((e) => [e.stream, e.id, e.data.n]),
      expected.map((n) => [n === 2 || n === 4 ? two : one, ours[n].id, n]),
      what,
    );
    report(
      `${what}: ${events.length} events of the scope, ${cost} records read (at most ${most}), ${outsideCount} events outside it`,
    );
    assert.ok(
      cost <= most,
      `${what}: ${cost} records read for a scope of ${expected.length} events, at most ${most}`,
    );
  };
  const most = (scopeEvents: number) => 2 * scopeEvents + 2;

  await inScope('now', undefined, [0, 1, 2, 3], most(4));
  await inScope('at a past position', { untilPosition: second.position }, [0, 1, 2], most(4));
  await inScope('at a past instant', { untilRecordedAt: second.recordedAt }, [0, 1, 2], most(4));
  await inScope('at the first append', { untilPosition: first.position }, [0, 1], most(4));
  await inScope('before the scope began', { untilRecordedAt: first.recordedAt - 1_000_000 }, [], most(4));

  // Appended after the index's catch-up: a read of now finds them in the log after what the index covers.
  const fourth = await store.append(two, [ours[4]], second.nextRevision);
  await noise(5);
  const unindexed = 1 + 50;
  await inScope(
    'now, with events the index does not cover yet',
    undefined,
    [0, 1, 2, 3, 4],
    most(5) + unindexed,
  );
  await inScope(
    'at a past position the index covers',
    { untilPosition: third.position },
    [0, 1, 2, 3],
    most(5),
  );
  assert.ok(fourth.position > third.position);

  // A prefix that is no scope of its own (it stops inside a name) is read through the organization's trails.
  const { events: named, cost } = await read(`trail-${org}/web`);
  assert.deepEqual(
    [...new Set(named.map((e) => e.stream))].sort(),
    [one, two, `trail-${org}/web`, `trail-${org}/webshop/webshop-1`].sort(),
  );
  orgTrails += ours.length;
  report(
    `a prefix inside a name: ${named.length} events, ${cost} records read (at most ${most(orgTrails) + unindexed})`,
  );
  assert.ok(
    cost <= most(orgTrails) + unindexed,
    `${cost} records read for a prefix within the ${orgTrails} events of the organization's trails`,
  );
}

/** Waits until `condition` (sync or async) holds, polling; fails after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A follower of a store that cannot be reached reports StoreUnavailableError to onError (and keeps retrying). */
export async function assertFollowReportsOutage(down: EventStore): Promise<void> {
  const errors: unknown[] = [];
  const following = down.follow(0, async () => undefined, {
    onError: (error) => errors.push(error),
    retryDelayMs: 10,
  });
  try {
    await until(() => errors.length > 0, 30_000);
  } finally {
    await following.stop();
  }
  assert.ok(errors[0] instanceof StoreUnavailableError, String(errors[0]));
}
