import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import {
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NotLeaderError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import { assertPrefixReadsStayInScope, until } from './event-store.contract';
import { INDEX_CHECKPOINT_STREAM, indexStreamOf } from './index-scopes';
import {
  EventToAppend,
  EventTooLargeError,
  StoreUnavailableError,
  StoredEvent,
  WrongExpectedRevisionError,
} from './event-store.port';
import { KurrentClient, KurrentDbEventStore, withClientSettings } from './kurrentdb-event-store';

/**
 * A stand-in for the KurrentDB client (no server can run here), shaped like the
 * real one (@kurrent/kurrentdb-client 1.3): positions are byte offsets with
 * commit == prepare for appended events; reads from a position include the event
 * at it; `$all` reads honour maxCount and the system-event filter; subscriptions
 * are object-mode streams with `unsubscribe()`; `created` is a Date (ms). Link
 * events (`$>`, binary `<revision>@<stream>`) resolve, with resolveLinkTos, to
 * `{ event: the target, link: the link }`; streams read backwards from END;
 * `no_stream` and a revision are checked on append.
 */
interface FakeRecord {
  streamId: string;
  id: string;
  type: string;
  revision: bigint;
  position: bigint;
  created: Date;
  data: unknown;
  metadata: unknown;
  isJson: boolean;
}

type Subscription = PassThrough & { unsubscribe(): Promise<void>; from: bigint };

class FakeKurrent {
  readonly log: FakeRecord[] = [];
  readonly calls: { method: string; options: Record<string, unknown>; stream?: string }[] = [];
  readonly subscriptions: Subscription[] = [];
  private next = 4096n;
  clock = 1_700_000_000_123;
  /** Fails (or, with 'hang', never answers) the next read-back of an append. */
  readBack: 'ok' | 'fail' | 'hang' = 'ok';
  appendError: Error | undefined;
  /** When set, appendError fails the next append to this stream only (once). */
  appendErrorOn: string | undefined;
  readError: Error | undefined;
  readonly streamMetadata = new Map<string, Record<string, unknown>>();
  /** Streams the subscription delivers live (default: every appended record). */
  live = true;

  record(stream: string, type: string, data: unknown, isJson = true): FakeRecord {
    const revision = BigInt(this.log.filter((r) => r.streamId === stream).length);
    const record: FakeRecord = {
      streamId: stream,
      id: randomUUID(),
      type,
      revision,
      position: this.next,
      created: new Date(this.clock++),
      data,
      metadata: {},
      isJson,
    };
    this.next += 300n + BigInt(JSON.stringify(data).length);
    this.log.push(record);
    if (this.live)
      for (const s of this.subscriptions) if (!s.destroyed && !s.writableEnded) s.write(resolved(record));
    return record;
  }

  private async *streamRecords(stream: string, options: Record<string, unknown>) {
    if (options.maxCount === 1 && options.requiresLeader) {
      if (this.readBack === 'fail') throw new UnavailableError();
      if (this.readBack === 'hang') await new Promise(() => undefined);
    }
    if (this.readError) throw this.readError;
    const records = this.log.filter((r) => r.streamId === stream);
    if (records.length === 0) throw new StreamNotFoundError(undefined, stream);
    const backwards = options.direction === 'backwards';
    if (backwards) records.reverse();
    const from =
      typeof options.fromRevision === 'bigint'
        ? options.fromRevision
        : backwards
          ? BigInt(records.length)
          : 0n;
    let n = 0;
    for (const r of records) {
      if (backwards ? r.revision > from : r.revision < from) continue;
      if (n++ >= Number(options.maxCount ?? Infinity)) return;
      yield options.resolveLinkTos ? this.resolveLink(r) : resolved(r);
    }
  }

  /** A link record as the server resolves it: its target as the event, itself as the link. */
  private resolveLink(r: FakeRecord) {
    if (r.type !== '$>') return resolved(r);
    const [revision, ...stream] = Buffer.from(r.data as Uint8Array)
      .toString('utf8')
      .split('@');
    const target = this.log.find((t) => t.streamId === stream.join('@') && t.revision === BigInt(revision));
    return target ? { ...resolved(target), link: resolved(r).event } : resolved(r);
  }

  private async *allRecords(options: Record<string, unknown>) {
    if (this.readError) throw this.readError;
    const system = (r: FakeRecord) => options.filter !== undefined && r.type.startsWith('$');
    const records = this.log.filter((r) => !system(r));
    const max = Number(options.maxCount ?? Infinity);
    if (options.direction === 'backwards') {
      for (const r of records.slice().reverse().slice(0, max)) yield resolved(r);
      return;
    }
    const from =
      options.fromPosition === 'start' ? 0n : (options.fromPosition as { prepare: bigint }).prepare;
    let n = 0;
    for (const r of records) {
      if (r.position < from) continue; // inclusive, like the server
      if (n++ >= max) return;
      yield resolved(r);
    }
  }

  readonly client: KurrentClient = {
    appendToStream: (async (
      stream: string,
      events: { id: string; type: string; data: unknown; metadata: unknown; contentType: string }[],
      options: { streamState: unknown },
    ) => {
      this.calls.push({ method: 'append', options, stream });
      if (this.appendError && (!this.appendErrorOn || this.appendErrorOn === stream)) {
        const error = this.appendError;
        if (this.appendErrorOn) this.appendError = this.appendErrorOn = undefined; // once
        throw error;
      }
      const current = this.log.filter((r) => r.streamId === stream).length - 1;
      const state = options.streamState;
      if (
        (typeof state === 'bigint' && state !== BigInt(current)) ||
        (state === 'no_stream' && current >= 0)
      ) {
        throw new WrongExpectedVersionError(undefined, {
          streamName: stream,
          expected: state as bigint,
          current: current < 0 ? 'no_stream' : BigInt(current),
        });
      }
      let last: FakeRecord | undefined;
      for (const e of events) {
        last = this.record(stream, e.type, e.data, e.contentType !== 'application/octet-stream');
        last.id = e.id;
        last.metadata = e.metadata;
      }
      return {
        success: true,
        nextExpectedRevision: last!.revision,
        position: { commit: last!.position, prepare: last!.position },
      };
    }) as never,

    readStream: ((stream: string, options: Record<string, unknown>) => {
      this.calls.push({ method: 'readStream', options, stream });
      return this.streamRecords(stream, options);
    }) as never,

    readAll: ((options: Record<string, unknown>) => {
      this.calls.push({ method: 'readAll', options });
      return this.allRecords(options);
    }) as never,

    subscribeToAll: ((options: { fromPosition: 'start' | { prepare: bigint } }) => {
      this.calls.push({ method: 'subscribeToAll', options });
      const from = options.fromPosition === 'start' ? 0n : options.fromPosition.prepare;
      const s = new PassThrough({ objectMode: true }) as Subscription;
      s.from = from;
      s.unsubscribe = async () => void (s.destroyed || s.end());
      // Catch-up part of the subscription: from the position on (the event at it included,
      // which the adapter must drop), then live.
      for (const r of this.log) if (r.position >= from && !r.type.startsWith('$')) s.write(resolved(r));
      this.subscriptions.push(s);
      return s;
    }) as never,

    setStreamMetadata: (async (stream: string, metadata: Record<string, unknown>) => {
      this.calls.push({ method: 'setStreamMetadata', options: metadata, stream });
      this.streamMetadata.set(stream, metadata);
      return { success: true, nextExpectedRevision: 0n };
    }) as never,

    dispose: async () => undefined,
  };
}

function resolved(r: FakeRecord) {
  return {
    event: {
      streamId: r.streamId,
      id: r.id,
      type: r.type,
      revision: r.revision,
      data: r.data,
      metadata: r.metadata,
      isJson: r.isJson,
      created: r.created,
      position: { commit: r.position, prepare: r.position },
    },
    commitPosition: r.position,
  };
}

const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: { org: 'acme' },
});

const open = (fake: FakeKurrent, extra: { connectTimeoutMs?: number; maxAppendSize?: number } = {}) =>
  new KurrentDbEventStore('kurrentdb://unused:2113?tls=false', {
    client: fake.client,
    now: () => 1_800_000_000_000.7,
    connectTimeoutMs: extra.connectTimeoutMs ?? 2000,
    maxAppendSize: extra.maxAppendSize,
  });

describe('KurrentDbEventStore (against a stand-in client)', () => {
  describe('append', () => {
    it("takes the position from the append's answer and recorded_at from the stored event", async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      const result = await store.append('s-acme/a', [event('a'), event('b')], 'no_stream');
      const last = fake.log[fake.log.length - 1];
      assert.deepEqual(result, {
        nextRevision: 1,
        position: Number(last.position),
        recordedAt: last.created.getTime() * 1000,
      });
      const reads = fake.calls.filter((c) => c.method === 'readStream');
      assert.equal(reads.length, 1, 'one read, of the last event only');
      assert.equal(reads[0].options.maxCount, 1);
      assert.equal(reads[0].options.fromRevision, 1n);
    });

    it('a failed read-back never turns the committed write into an error', async () => {
      const fake = new FakeKurrent();
      fake.readBack = 'fail';
      const store = open(fake);
      const result = await store.append('s-acme/b', [event('a')], 'no_stream');
      assert.equal(fake.log.length, 1, 'written');
      assert.equal(result.position, Number(fake.log[0].position), 'position from the append answer');
      assert.equal(result.recordedAt, 1_800_000_000_000_000, 'the client clock, in whole ms, stands in');
    });

    it('a read-back that never answers ends at the timeout, and the write still succeeds', async () => {
      const fake = new FakeKurrent();
      fake.readBack = 'hang';
      const store = open(fake, { connectTimeoutMs: 200 });
      const result = await store.append('s-acme/c', [event('a')], 'no_stream');
      assert.equal(result.position, Number(fake.log[0].position));
      assert.equal(result.recordedAt, 1_800_000_000_000_000);
    });

    it('maps a wrong expected version from the error itself, without reading the stream', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      await store.append('s-acme/d', [event('a'), event('b')], 'no_stream');
      fake.calls.length = 0;
      await assert.rejects(store.append('s-acme/d', [event('c')], 0), (error: unknown) => {
        assert.ok(error instanceof WrongExpectedRevisionError);
        assert.deepEqual([error.stream, error.expected, error.actual], ['s-acme/d', 0, 1]);
        return true;
      });
      assert.deepEqual(
        fake.calls.map((c) => c.method),
        ['append'],
      );
    });

    it('refuses an append over the limit before sending it, and maps the server refusing one', async () => {
      const fake = new FakeKurrent();
      const store = open(fake, { maxAppendSize: 100 });
      await assert.rejects(
        store.append('s-acme/e', [event('big', { x: 'x'.repeat(100) })], 'any'),
        EventTooLargeError,
      );
      assert.equal(fake.calls.length, 0, 'never sent');
      fake.appendError = MaxAppendSizeExceededError.fromMaxAppendSize(50);
      await assert.rejects(store.append('s-acme/e', [event('small')], 'any'), (error: unknown) => {
        assert.ok(error instanceof EventTooLargeError);
        assert.equal(error.limit, 50);
        return true;
      });
    });
  });

  describe('errors', () => {
    const serviceError = (code: number, details: string) =>
      Object.assign(new Error(`${code} ${details}`), { code, details, metadata: undefined });
    const transient: [string, () => Error][] = [
      ['UnavailableError', () => new UnavailableError()],
      ['DeadlineExceededError', () => new DeadlineExceededError()],
      ['TimeoutError (server timeout)', () => new TimeoutError()],
      ['CancelledError (server cancelled)', () => new CancelledError()],
      [
        'NotLeaderError (as the bridge builds it)',
        () =>
          new NotLeaderError({
            message: 'not leader',
            metadata: { 'leader-endpoint-host': 'node2', 'leader-endpoint-port': 2113 },
          } as never),
      ],
      ['failed discovery', () => new Error('Failed to discover after 10 attempts.')],
      ['bridge deadline', () => new UnknownError({ message: 'Deadline exceeded' } as never)],
      ['bridge connection closed', () => new UnknownError({ message: 'Connection is closed.' } as never)],
      [
        'bridge server-side error',
        () => new UnknownError({ message: 'Server-side error: status: Unavailable, message: "x"' } as never),
      ],
      ['raw gRPC UNAVAILABLE', () => serviceError(14, 'No connection established')],
      ['raw gRPC DEADLINE_EXCEEDED', () => serviceError(4, 'Deadline exceeded')],
    ];
    for (const [name, make] of transient) {
      it(`${name} → StoreUnavailableError, on reads and on appends`, async () => {
        const fake = new FakeKurrent();
        const store = open(fake);
        fake.readError = make();
        await assert.rejects(store.readStream('s-acme/x'), StoreUnavailableError);
        await assert.rejects(store.readAll(0, 10), StoreUnavailableError);
        fake.appendError = make();
        await assert.rejects(store.append('s-acme/x', [event('a')], 'any'), StoreUnavailableError);
      });
    }

    it('leaves errors that are not outages as they are', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      fake.readError = new AccessDeniedError();
      await assert.rejects(store.readStream('s-acme/x'), AccessDeniedError);
      fake.readError = new UnknownError({ message: 'Internal parsing error: x' } as never);
      await assert.rejects(store.readStream('s-acme/x'), UnknownError);
    });
  });

  describe('readAll', () => {
    it('resumes exactly after a position inside a multi-event append', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      await store.append('s-acme/r', [event('r0'), event('r1'), event('r2'), event('r3')], 'no_stream');
      const middle = Number(fake.log[1].position);
      assert.deepEqual(
        (await store.readAll(middle, 10)).map((e) => e.type),
        ['r2', 'r3'],
      );
      const read = fake.calls.filter((c) => c.method === 'readAll').at(-1)!;
      assert.deepEqual(read.options.fromPosition, { commit: BigInt(middle), prepare: BigInt(middle) });
    });

    it('reads on past events it does not deliver instead of stopping short of the limit', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      await store.append('s-acme/p', [event('before')], 'no_stream');
      const after = Number(fake.log[0].position);
      for (let i = 0; i < 5; i++) fake.record('s-acme/bin', 'binary', {}, false);
      await store.append('s-acme/p', [event('x1'), event('x2'), event('x3')], 0);
      assert.deepEqual(
        (await store.readAll(after, 2)).map((e) => e.type),
        ['x1', 'x2'],
      );
      assert.ok(
        fake.calls.filter((c) => c.method === 'readAll').every((c) => Number(c.options.maxCount) <= 3),
        'each read asks for a bounded page (maxCount)',
      );
    });
  });

  describe('follow', () => {
    it('catches up in batches of up to batchSize, then subscribes from the last position delivered', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      for (let i = 0; i < 7; i++) await store.append(`s-acme/f${i}`, [event(`e${i}`)], 'no_stream');
      const checkpoint = Number(fake.log[1].position);
      const batches: StoredEvent[][] = [];
      const following = store.follow(checkpoint, async (batch) => void batches.push(batch), { batchSize: 2 });
      try {
        await until(() => fake.subscriptions.length === 1);
        assert.deepEqual(
          batches.map((b) => b.map((e) => e.type)),
          [['e2', 'e3'], ['e4', 'e5'], ['e6']],
        );
        assert.equal(
          fake.subscriptions[0].from,
          fake.log[6].position,
          'subscribed from the last delivered position',
        );
        await store.append('s-acme/live', [event('live')], 'no_stream');
        await until(() => batches.flat().some((e) => e.type === 'live'));
        const types = batches.flat().map((e) => e.type);
        assert.deepEqual(types, ['e2', 'e3', 'e4', 'e5', 'e6', 'live'], 'the re-delivered e6 is dropped');
      } finally {
        await following.stop();
      }
    });

    it('hands live events that arrived while the handler was busy over as one batch', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const batches: string[][] = [];
      const following = store.follow(
        0,
        async (batch) => {
          batches.push(batch.map((e) => e.type));
          if (batch.some((e) => e.type === 'first')) await gate;
        },
        { batchSize: 3 },
      );
      try {
        await until(() => fake.subscriptions.length === 1);
        await store.append('s-acme/l', [event('first')], 'no_stream');
        await until(() => batches.length === 1);
        for (let i = 0; i < 4; i++) await store.append('s-acme/l', [event(`b${i}`)], i);
        release();
        await until(() => batches.flat().length === 5);
        assert.deepEqual(batches, [['first'], ['b0', 'b1', 'b2'], ['b3']]);
      } finally {
        release();
        await following.stop();
      }
    });

    it('after a broken subscription: onError, then catch-up from the last delivered position, nothing twice', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      const seen: string[] = [];
      const errors: unknown[] = [];
      const following = store.follow(0, async (batch) => void seen.push(...batch.map((e) => e.type)), {
        retryDelayMs: 5,
        onError: (error) => errors.push(error),
      });
      try {
        await until(() => fake.subscriptions.length === 1);
        await store.append('s-acme/k', [event('k0')], 'no_stream');
        await until(() => seen.length === 1);
        fake.live = false; // appended while the connection is down
        await store.append('s-acme/k', [event('k1')], 0);
        fake.subscriptions[0].destroy(new UnavailableError());
        await until(() => fake.subscriptions.length === 2);
        fake.live = true;
        await store.append('s-acme/k', [event('k2')], 1);
        await until(() => seen.length === 3);
        assert.deepEqual(seen, ['k0', 'k1', 'k2']);
        assert.ok(errors[0] instanceof StoreUnavailableError, String(errors[0]));
      } finally {
        await following.stop();
      }
    });
  });

  describe('the scope index', () => {
    /** The events each index stream links to, in link order, as `stream@revision`. */
    const linked = (fake: FakeKurrent, scope: string) =>
      fake.log
        .filter((r) => r.streamId === indexStreamOf(scope))
        .map((r) => {
          assert.equal(r.type, '$>');
          assert.equal(r.isJson, false);
          const [revision, ...stream] = Buffer.from(r.data as Uint8Array)
            .toString('utf8')
            .split('@');
          return `${stream.join('@')}@${revision}`;
        });

    it('passes the contract case: exactly the scope, reading none of the events outside it', async (t) => {
      const fake = new FakeKurrent();
      const store = open(fake);
      const lines: string[] = [];
      await assertPrefixReadsStayInScope(store, (line) => {
        lines.push(line);
        t.diagnostic(line);
      });
      assert.ok(lines.length >= 8, lines.join('\n'));
      const filtered = fake.calls.filter((c) => c.method === 'readAll' && c.options.filter !== undefined);
      assert.ok(
        filtered.every((c) => (c.options.filter as { filterOn?: string }).filterOn !== 'streamName'),
        'the server is never asked to walk the log for a stream name',
      );
    });

    it('links every event into each scope of its stream once, in position order, and checkpoints the last', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      await store.append('trail-acme/web/1', [event('a'), event('b')], 'no_stream');
      await store.append('trail-acme/api/1', [event('c')], 'no_stream');
      await store.append('actions-acme', [event('d')], 'no_stream');
      await store.append('trail-acme/web/1', [event('e')], 1);
      const covered = await store.catchUpIndex();
      const last = fake.log.filter((r) => !r.type.startsWith('$')).at(-1)!;
      assert.equal(covered, Number(last.position));
      assert.deepEqual(linked(fake, 'trail-acme/'), [
        'trail-acme/web/1@0',
        'trail-acme/web/1@1',
        'trail-acme/api/1@0',
        'trail-acme/web/1@2',
      ]);
      assert.deepEqual(linked(fake, 'trail-acme/web/'), [
        'trail-acme/web/1@0',
        'trail-acme/web/1@1',
        'trail-acme/web/1@2',
      ]);
      assert.deepEqual(linked(fake, 'trail-acme/api/'), ['trail-acme/api/1@0']);
      const checkpoint = fake.log.filter((r) => r.streamId === INDEX_CHECKPOINT_STREAM);
      assert.equal(checkpoint.length, 1);
      assert.deepEqual(checkpoint[0].metadata, {
        position: Number(last.position),
        recorded_at: last.created.getTime() * 1000,
      });
      assert.deepEqual(fake.streamMetadata.get(INDEX_CHECKPOINT_STREAM), { maxCount: 64 });
      // Nothing new: a second pass appends nothing.
      const records = fake.log.length;
      assert.equal(await store.catchUpIndex(), covered);
      assert.equal(fake.log.length, records);
      // Links and checkpoints are system records: the log as the service reads it has none.
      assert.deepEqual(
        (await store.readAll(0, 100)).map((e) => e.type),
        ['a', 'b', 'c', 'd', 'e'],
      );
      assert.equal((await store.head()).position, Number(last.position));
    });

    it('a crash between the links and the checkpoint links nothing twice, and reads miss nothing meanwhile', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      await store.append('environment-acme/prod', [event('a')], 'no_stream');
      await store.catchUpIndex();
      await store.append('environment-acme/prod', [event('b')], 0);
      await store.append('environment-acme/test', [event('c')], 'no_stream');
      fake.appendError = new UnavailableError();
      fake.appendErrorOn = INDEX_CHECKPOINT_STREAM;
      await assert.rejects(store.catchUpIndex(), StoreUnavailableError);
      assert.deepEqual(linked(fake, 'environment-acme/'), [
        'environment-acme/prod@0',
        'environment-acme/prod@1',
        'environment-acme/test@0',
      ]);
      // The checkpoint still names `a`: b and c are read from the log after it.
      assert.deepEqual(
        (await store.readStreamsByPrefix('environment-acme/')).map((e) => e.type),
        ['a', 'b', 'c'],
      );
      // Another process (its own memory of the index) takes over: it skips what is linked.
      const other = open(fake);
      await other.catchUpIndex();
      assert.deepEqual(linked(fake, 'environment-acme/'), [
        'environment-acme/prod@0',
        'environment-acme/prod@1',
        'environment-acme/test@0',
      ]);
      const before = store.readStats().recordsRead;
      assert.deepEqual(
        (await store.readStreamsByPrefix('environment-acme/')).map((e) => e.type),
        ['a', 'b', 'c'],
      );
      // The checkpoint, three links and their events, and the event at the checkpoint again (a read of
      // the log from a position includes it), which finds the log ends there.
      assert.equal(store.readStats().recordsRead - before, 1 + 2 * 3 + 1);
    });

    it('two passes racing link each event once: the index streams take the expected revision', async () => {
      const fake = new FakeKurrent();
      const [a, b] = [open(fake), open(fake)];
      for (let i = 0; i < 30; i++) await a.append(`flow-acme/f${i % 3}`, [event(`e${i}`)], 'any');
      await Promise.all([a.catchUpIndex(), b.catchUpIndex(), a.catchUpIndex()]);
      const links = linked(fake, 'flow-acme/');
      assert.equal(links.length, 30);
      assert.equal(new Set(links).size, 30, 'no event linked twice');
      assert.deepEqual(
        (await b.readStreamsByPrefix('flow-acme/')).map((e) => e.type),
        Array.from({ length: 30 }, (_, i) => `e${i}`),
      );
    });

    it('a past read the index covers reads no log; a read with no index yet reads the log', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      await store.append('policy-acme/p', [event('v1')], 'no_stream');
      const before = await store.readStreamsByPrefix('policy-acme/');
      assert.deepEqual(
        before.map((e) => e.type),
        ['v1'],
        'no checkpoint yet: the log, read whole',
      );
      await store.catchUpIndex();
      const v1 = before[0];
      await store.append('policy-acme/p', [event('v2')], 0);
      fake.calls.length = 0;
      const past = await store.readStreamsByPrefix('policy-acme/', { untilPosition: v1.position });
      assert.deepEqual(
        past.map((e) => [e.type, e.position, e.recordedAt]),
        [['v1', v1.position, v1.recordedAt]],
      );
      assert.deepEqual(
        fake.calls.map((c) => [c.method, c.stream]),
        [
          ['readStream', INDEX_CHECKPOINT_STREAM],
          ['readStream', indexStreamOf('policy-acme/')],
        ],
      );
    });

    it('keeps the index while running, and stops', async () => {
      const fake = new FakeKurrent();
      const store = open(fake);
      const errors: unknown[] = [];
      const keeping = store.keepIndex({ pollMs: 10, onError: (e) => errors.push(e) });
      try {
        await store.append('control-acme/c', [event('one')], 'no_stream');
        await until(() => linked(fake, 'control-acme/').length === 1);
        fake.appendError = new UnavailableError();
        fake.appendErrorOn = indexStreamOf('control-acme/');
        await store.append('control-acme/c', [event('two')], 0);
        await until(() => linked(fake, 'control-acme/').length === 2);
        assert.ok(
          errors[0] instanceof StoreUnavailableError,
          'a failed pass is reported, the next one retries',
        );
      } finally {
        await keeping.stop();
      }
      const checkpoint = fake.log.filter((r) => r.streamId === INDEX_CHECKPOINT_STREAM).at(-1)!;
      assert.equal(
        (checkpoint.metadata as { position: number }).position,
        Number(fake.log.filter((r) => r.type === 'two')[0].position),
      );
    });
  });

  describe('connection settings', () => {
    it('passes DES_CONNECT_TIMEOUT_MS to the client as deadline and discovery budget, keeping what the URL sets', () => {
      assert.equal(
        withClientSettings('kurrentdb://a:2113,b:2113?tls=false', 3000),
        'kurrentdb://a:2113,b:2113?tls=false&defaultDeadline=3000&discoveryInterval=100&maxDiscoverAttempts=30',
      );
      assert.equal(
        withClientSettings('kurrentdb://a:2113/', 500),
        'kurrentdb://a:2113?defaultDeadline=500&discoveryInterval=100&maxDiscoverAttempts=5',
      );
      assert.equal(
        withClientSettings(
          'esdb://a:2113?DefaultDeadline=9000&max-discover-attempts=2&discoveryInterval=7',
          3000,
        ),
        'esdb://a:2113?DefaultDeadline=9000&max-discover-attempts=2&discoveryInterval=7',
      );
    });
  });
});
