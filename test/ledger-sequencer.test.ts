import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, test } from 'node:test';
import { canonicalTextOf, type EventStore, KurrentDbEventStore, SqliteEventStore } from '#des/event-store';
import {
  consistencyProof,
  entryPosition,
  GrowingTree,
  inclusionProof,
  integratedSize,
  leafHash,
  leafIndexes,
  rootAt,
  TreeSequencer,
  verifyConsistency,
  verifyInclusion,
  withKeptTree,
} from '#des/ledger';

import { MemoryReadStore, MongoReadStore, type ReadStore } from '#des/read-store';
import { mongoEngine, uniqueName } from './support/engines';

/** Appends `n` events for `org` (or for no organization), one stream each, as the service does. */
async function appendEvents(store: EventStore, org: string | undefined, n: number, tag: string) {
  for (let i = 0; i < n; i++) {
    await store.append(
      `test-${org ?? 'service'}/${tag}-${i}`,
      [{ id: randomUUID(), type: 'thing_happened', data: { i, tag }, metadata: org ? { org } : {} }],
      'no_stream',
    );
  }
}

/** The organization's events in log order, as the tree takes them: an independent tree over their texts. */
async function expectedTree(store: EventStore, org: string) {
  const tree = new GrowingTree();
  const positions: number[] = [];
  for (let after = 0; ;) {
    const batch = await store.readAll(after, 500);
    if (!batch.length) break;
    for (const e of batch)
      if (e.metadata.org === org) {
        tree.append(leafHash(canonicalTextOf(e)));
        positions.push(e.position);
      }
    after = batch[batch.length - 1].position;
  }
  return { tree, positions };
}

const kurrentUrl = process.env.KURRENTDB_URL;
const sqlite = () =>
  new SqliteEventStore({ path: join(mkdtempSync(join(tmpdir(), 'des-ledger-')), 'events.db') });
const runs: { log: string; kind: 'memory' | 'mongodb'; open: () => EventStore }[] = [
  { log: 'SQLite', kind: 'memory', open: sqlite },
  { log: 'SQLite', kind: 'mongodb', open: sqlite },
  ...(kurrentUrl
    ? [{ log: 'KurrentDB', kind: 'memory' as const, open: () => new KurrentDbEventStore(kurrentUrl) }]
    : []),
];
if (!kurrentUrl)
  test(
    "the transparency log's sequencer on KurrentDB",
    { skip: 'SKIPPED: KURRENTDB_URL is not set, no KurrentDB server to test against' },
    () => {},
  );

for (const { log, kind, open } of runs) {
  describe(`the transparency log's sequencer (${log} log, ${kind} read store)`, () => {
    // A KurrentDB server is shared: each run's organizations are its own.
    const acme = `acme-${randomUUID().slice(0, 8)}`;
    const globex = `globex-${randomUUID().slice(0, 8)}`;
    const stores: ReadStore[] = [];
    const readStore = async (): Promise<ReadStore> => {
      const store =
        kind === 'memory'
          ? new MemoryReadStore()
          : await new MongoReadStore({
              url: (await mongoEngine()).url,
              database: uniqueName('ledger'),
            }).connect();
      stores.push(store);
      return store;
    };
    after(async () => {
      for (const s of stores) await s.close();
    });

    it("integrates each organization's events into its own tree, resumes after a restart, and proves from its tiles", async () => {
      const events = open();
      const reads = await readStore();
      await appendEvents(events, acme, 300, 'a');
      await appendEvents(events, undefined, 5, 'service');
      await appendEvents(events, globex, 40, 'g');
      const first = new TreeSequencer(events, reads, 128);
      await first.catchUp();
      assert.equal(await integratedSize(reads, acme), 300);
      assert.equal(await integratedSize(reads, globex), 40);

      // A new sequencer (a restart, another process after the lease moved) goes on from what is kept.
      await appendEvents(events, acme, 260, 'b');
      const second = new TreeSequencer(events, reads, 100);
      await second.catchUp();
      const { tree, positions } = await expectedTree(events, acme);
      assert.equal(await integratedSize(reads, acme), 560);
      for (const size of [1, 255, 256, 300, 513, 560])
        assert.deepEqual(await withKeptTree(reads, acme, size, (t) => rootAt(t, size)), rootAt(tree, size));
      const root = rootAt(tree, 560);
      for (const index of [0, 299, 300, 559]) {
        const proof = await withKeptTree(reads, acme, 560, (t) => inclusionProof(t, index, 560));
        assert.deepEqual(proof, inclusionProof(tree, index, 560));
        assert.ok(verifyInclusion(tree.perfect(0, index), index, 560, proof, root));
        assert.equal(await entryPosition(reads, acme, index), positions[index]);
      }
      const consistency = await withKeptTree(reads, acme, 560, (t) => consistencyProof(t, 300, 560));
      assert.ok(verifyConsistency(300, 560, consistency, rootAt(tree, 300), root));
      assert.equal(await entryPosition(reads, acme, 560), null);
      // Back from log positions to leaves (what a bundle proves): every one, in any order; none past the size.
      const asked = [positions[559], positions[0], positions[256], positions[255], positions[300], 1e15];
      const found = await leafIndexes(reads, acme, 560, asked);
      assert.deepEqual(
        asked.map((p) => found.get(p)),
        [559, 0, 256, 255, 300, undefined],
      );
      // Every leaf's position is kept, those of an entries document filled up within a batch among them.
      const all = await leafIndexes(reads, acme, 560, positions);
      assert.deepEqual(
        positions.map((p) => all.get(p)),
        positions.map((_, i) => i),
      );
      const cut = await leafIndexes(reads, acme, 300, positions);
      assert.equal(cut.size, 300, 'only the leaves of a tree of that size');
      assert.equal(cut.get(positions[299]), 299);
      await events.close();
    });

    it('writes again what a crash left uncounted: tiles past the tree are cut to its size', async () => {
      const events = open();
      const reads = await readStore();
      await appendEvents(events, acme, 70, 'a');
      await new TreeSequencer(events, reads, 50).catchUp();
      // As if a batch had written its tiles and crashed before its tree and position: they say 50 events.
      const cut = (await expectedTree(events, acme)).positions[49];
      await reads.collection('ledger_trees').updateOne({ _id: acme }, { $set: { size: 50, position: cut } });
      await reads.collection('ledger_sequencer').updateOne({ _id: 'sequencer' }, { $set: { position: cut } });
      await appendEvents(events, acme, 10, 'b');
      await new TreeSequencer(events, reads, 50).catchUp();
      const { tree } = await expectedTree(events, acme);
      assert.equal(await integratedSize(reads, acme), 80);
      assert.deepEqual(await withKeptTree(reads, acme, 80, (t) => rootAt(t, 80)), rootAt(tree, 80));
      await events.close();
    });
  });
}
