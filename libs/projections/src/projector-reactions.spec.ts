import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { until } from '#des/event-store/contract';
import { describe, it } from 'node:test';
import {
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  SqliteEventStore,
} from '#des/event-store';
import { MemoryReadStore } from '#des/read-store';
import { CHECKPOINTS } from './projection';
import { POSITIONS, forgetPositions } from './checkpoint-positions';
import { Projector } from './projector';
import { derivedId, Reaction } from './reaction';
import { reactionCheckpointFile } from './reaction-checkpoint-file';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SOURCE = 'source-acme/s';
const TARGET = 'trail-acme/f/t';

/** Every `trigger` on the source stream appends one `echoed` event, with a derived id, to the target. */
const echo: Reaction = {
  name: 'echo',
  react: (event) =>
    event.type === 'trigger'
      ? [
          {
            stream: TARGET,
            events: [
              {
                id: derivedId(event.id, 'echo'),
                type: 'echoed',
                data: { n: event.data.n },
                metadata: { org: 'acme', causation_id: event.id },
              },
            ],
          },
        ]
      : [],
};

interface AppendCall {
  stream: string;
  types: string[];
  expected: ExpectedRevision;
  outcome: 'ok' | string;
}

/** The real SQLite store, recording every append made through it (and optionally interfering first). */
function spying(
  real: SqliteEventStore,
  before?: (stream: string) => Promise<void>,
): EventStore & { calls: AppendCall[] } {
  const calls: AppendCall[] = [];
  return Object.assign(Object.create(real) as EventStore, {
    calls,
    async append(stream: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
      await before?.(stream);
      const call: AppendCall = { stream, types: events.map((e) => e.type), expected, outcome: 'ok' };
      calls.push(call);
      try {
        return await real.append(stream, events, expected);
      } catch (error) {
        call.outcome = error instanceof Error ? error.name : String(error);
        throw error;
      }
    },
  });
}

const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: { org: 'acme' },
});

const streamTypes = async (store: EventStore, stream: string) =>
  (await store.readStream(stream)).map((e) => `${e.type}${e.data.n === undefined ? '' : `:${e.data.n}`}`);

describe('Projector reactions append with the exact expected revision', () => {
  it('a replay of a reacted batch after the target stream moved on appends nothing twice', async () => {
    const real = new SqliteEventStore({ path: ':memory:' });
    const events = spying(real);
    const reads = new MemoryReadStore();
    await real.append(TARGET, [event('trail_reported')], 'no_stream');
    await real.append(SOURCE, [event('trigger', { n: 1 })], 'any');

    const first = new Projector(events, reads, [], { reactions: [echo] });
    await first.start();
    await until(async () => (await real.readStream(TARGET)).length === 2, 10_000);
    await first.stop();
    assert.deepEqual(events.calls, [{ stream: TARGET, types: ['echoed'], expected: 0, outcome: 'ok' }]);

    // A crash before the reaction's checkpoint was saved; meanwhile the target moved on and a new trigger came.
    await reads.collection(CHECKPOINTS).deleteMany({ _id: 'reaction:echo' });
    await reads.collection(CHECKPOINTS).updateOne({ _id: POSITIONS }, forgetPositions(['reaction:echo']));
    await real.append(TARGET, [event('attestation_reported')], 1);
    await real.append(SOURCE, [event('trigger', { n: 2 })], 'any');
    events.calls.length = 0;

    const second = new Projector(events, reads, [], { reactions: [echo] });
    await second.start();
    await until(async () => (await real.readStream(TARGET)).length === 4, 10_000);
    await second.stop(); // waits for the batch in flight: a duplicate would be in the stream now
    assert.deepEqual(await streamTypes(real, TARGET), [
      'trail_reported',
      'echoed:1',
      'attestation_reported',
      'echoed:2',
    ]);
    // Only the new event was sent, conditioned on the revision the stream really had (not `any`,
    // with which KurrentDB de-duplicates only on a best-effort basis).
    assert.deepEqual(events.calls, [{ stream: TARGET, types: ['echoed'], expected: 2, outcome: 'ok' }]);
    await real.close();
  });

  it('a lost race with another writer of the target reloads the stream and appends after it', async () => {
    const real = new SqliteEventStore({ path: ':memory:' });
    let interfered = false;
    const events = spying(real, async (stream) => {
      if (stream !== TARGET || interfered) return;
      interfered = true; // a command appends to the trail between the reaction's load and its append
      await real.append(TARGET, [event('attestation_reported')], 0);
    });
    await real.append(TARGET, [event('trail_reported')], 'no_stream');
    await real.append(SOURCE, [event('trigger', { n: 1 })], 'any');

    const projector = new Projector(events, new MemoryReadStore(), [], { reactions: [echo] });
    await projector.start();
    await until(async () => (await real.readStream(TARGET)).length === 3, 10_000);
    await projector.stop();
    assert.deepEqual(await streamTypes(real, TARGET), ['trail_reported', 'attestation_reported', 'echoed:1']);
    assert.deepEqual(events.calls, [
      { stream: TARGET, types: ['echoed'], expected: 0, outcome: 'WrongExpectedRevisionError' },
      { stream: TARGET, types: ['echoed'], expected: 1, outcome: 'ok' },
    ]);
    await real.close();
  });

  it('reactions over an in-memory read store resume after a restart where they were, not from the start', async () => {
    const real = new SqliteEventStore({ path: ':memory:' });
    const dir = mkdtempSync(join(tmpdir(), 'des-reactions-'));
    const checkpoints = reactionCheckpointFile(join(dir, 'reaction-checkpoints.json'));
    const seen: number[] = [];
    const counting: Reaction = {
      name: 'counting',
      react: (e) => {
        if (e.type === 'trigger') seen.push(e.data.n as number);
        return [];
      },
    };
    await real.append(SOURCE, [event('trigger', { n: 1 }), event('trigger', { n: 2 })], 'any');
    const first = new Projector(real, new MemoryReadStore(), [], {
      reactions: [counting],
      reactionCheckpoints: checkpoints,
    });
    await first.start();
    await until(async () => seen.length === 2, 10_000);
    await first.stop();

    // A restart: a new, empty in-memory store; the reaction sees only what came after.
    await real.append(SOURCE, [event('trigger', { n: 3 })], 'any');
    const second = new Projector(real, new MemoryReadStore(), [], {
      reactions: [counting],
      reactionCheckpoints: checkpoints,
    });
    await second.start();
    await until(async () => seen.length >= 3, 10_000);
    await second.stop();
    assert.deepEqual(seen, [1, 2, 3]);
    assert.deepEqual(checkpoints.load(), { 'reaction:counting': 3 });
    await real.close();
  });

  it('a coalescing reaction reacts once per key and organization in a batch, at the last event, the rest in order', async () => {
    const real = new SqliteEventStore({ path: ':memory:' });
    const seen: string[] = [];
    const latest: Reaction = {
      name: 'latest',
      coalesceBy: (e) => (e.type === 'trigger' ? e.stream : undefined),
      react: (e) => {
        seen.push(`${e.metadata.org as string} ${e.stream} ${e.type}:${e.data.n as number}`);
        return [];
      },
    };
    const at = (org: string, type: string, n: number): EventToAppend => ({
      ...event(type, { n }),
      metadata: { org },
    });
    await real.append('source-acme/a', [at('acme', 'trigger', 1), at('acme', 'trigger', 2)], 'any');
    await real.append('source-acme/b', [at('acme', 'trigger', 3)], 'any');
    await real.append('source-acme/a', [at('acme', 'other', 4), at('acme', 'trigger', 5)], 'any');
    await real.append('source-globex/a', [at('globex', 'trigger', 6), at('globex', 'trigger', 7)], 'any');
    // One batch for all of it; then a later batch, where the key is reacted to again.
    const projector = new Projector(real, new MemoryReadStore(), [], { reactions: [latest], batchSize: 100 });
    await projector.start();
    await until(async () => seen.length === 4, 10_000);
    await real.append('source-acme/a', [at('acme', 'trigger', 8)], 'any');
    await until(async () => seen.length === 5, 10_000);
    await projector.stop();
    // Organizations' lanes run side by side: each one's order is the log's.
    const of = (org: string) => seen.filter((s) => s.startsWith(`${org} `));
    assert.deepEqual(of('acme'), [
      'acme source-acme/b trigger:3',
      'acme source-acme/a other:4',
      'acme source-acme/a trigger:5',
      'acme source-acme/a trigger:8',
    ]);
    assert.deepEqual(of('globex'), ['globex source-globex/a trigger:7']);
    await real.close();
  });
});
