import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyAllOnce, applyOnce } from '#des/projections';
import { DuplicateKeyError, IndexSpec, ReadStore } from './read-store.port';

/** The one contract every read store adapter passes. */
export function readStoreContract(name: string, open: () => Promise<ReadStore>): void {
  describe(`read store contract: ${name}`, () => {
    let store: ReadStore;
    before(async () => {
      store = await open();
      const envs = store.collection('envs');
      for (const [i, n] of ['prod', 'staging', 'dev', 'qa', 'perf'].entries()) {
        await envs.updateOne(
          { _id: `acme/${n}` },
          { $set: { org: 'acme', name: n, rank: i, tags: { tier: i < 2 ? 'high' : 'low' } } },
          { upsert: true },
        );
      }
      await envs.updateOne(
        { _id: 'other/prod' },
        { $set: { org: 'other', name: 'prod', rank: 9 } },
        { upsert: true },
      );
    });
    after(async () => {
      await store.close();
    });

    it('upserts with update operators', async () => {
      const c = store.collection('counters');
      const r1 = await c.updateOne(
        { _id: 'x' },
        { $inc: { n: 1 }, $setOnInsert: { created: 1 } },
        { upsert: true },
      );
      assert.equal(r1.upserted, true);
      const r2 = await c.updateOne(
        { _id: 'x' },
        { $inc: { n: 2 }, $setOnInsert: { created: 2 }, $set: { 'a.b': 'c' } },
        { upsert: true },
      );
      assert.deepEqual([r2.matched, r2.upserted], [1, false]);
      await c.updateOne({ _id: 'x' }, { $push: { list: 'p' }, $addToSet: { set: 's' }, $max: { hi: 5 } });
      await c.updateOne({ _id: 'x' }, { $addToSet: { set: 's' }, $max: { hi: 3 }, $unset: { 'a.b': '' } });
      assert.deepEqual(await c.findOne({ _id: 'x' }), {
        _id: 'x',
        n: 3,
        created: 1,
        a: {},
        list: ['p'],
        set: ['s'],
        hi: 5,
      });
      const none = await c.updateOne({ _id: 'missing' }, { $set: { n: 1 } });
      assert.deepEqual([none.matched, none.upserted], [0, false]);
      assert.equal(await c.findOne({ _id: 'missing' }), null);
    });

    it('finds with filter, sort, skip, limit and projection; counts', async () => {
      const envs = store.collection('envs');
      const page = await envs.find({ org: 'acme' }, { sort: { rank: -1 }, skip: 1, limit: 2 });
      assert.deepEqual(
        page.map((d) => d.name),
        ['qa', 'dev'],
      );
      assert.equal(await envs.count({ org: 'acme' }), 5);
      assert.equal(await envs.count({ 'tags.tier': 'high' }), 2);
      const projected = await envs.find({ _id: 'acme/prod' }, { projection: { name: 1 } });
      assert.deepEqual(projected, [{ _id: 'acme/prod', name: 'prod' }]);
      const ors = await envs.find(
        { $or: [{ name: { $in: ['dev', 'qa'] } }, { rank: { $gte: 9 } }], tags: { $exists: true } },
        { sort: { name: 1 } },
      );
      assert.deepEqual(
        ors.map((d) => d.name),
        ['dev', 'qa'],
      );
    });

    it('pages: the page find answers and the count of all matches, past the end and with no match too', async () => {
      const envs = store.collection('envs');
      const options = { sort: { rank: -1 as const }, skip: 1, limit: 2 };
      const page = await envs.findPage({ org: 'acme' }, options);
      assert.deepEqual(
        page.docs.map((d) => d.name),
        ['qa', 'dev'],
      );
      assert.equal(page.total, 5);
      assert.deepEqual(page.docs, await envs.find({ org: 'acme' }, options));
      const ranged = await envs.findPage(
        { org: 'acme', rank: { $gte: 3 } },
        { sort: { name: 1 }, limit: 10 },
      );
      assert.deepEqual(
        ranged.docs,
        await envs.find({ org: 'acme', rank: { $gte: 3 } }, { sort: { name: 1 } }),
      );
      assert.equal(ranged.total, await envs.count({ org: 'acme', rank: { $gte: 3 } }));
      assert.deepEqual(await envs.findPage({ org: 'acme' }, { sort: { rank: 1 }, skip: 10, limit: 2 }), {
        total: 5,
        docs: [],
      });
      assert.deepEqual(await envs.findPage({ org: 'nobody' }, { sort: { rank: 1 }, limit: 2 }), {
        total: 0,
        docs: [],
      });
    });

    it('streams matches in sort order', async () => {
      const names: string[] = [];
      for await (const d of store.collection('envs').stream({ org: 'acme' }, { sort: { rank: 1 } })) {
        names.push(d.name as string);
      }
      assert.deepEqual(names, ['prod', 'staging', 'dev', 'qa', 'perf']);
    });

    it('enforces unique indexes declared once (declaring again is harmless)', async () => {
      const spec: IndexSpec[] = [
        { name: 'org_name', keys: { org: 1, name: 1 }, unique: true },
        { name: 'by_rank', keys: { rank: -1 } },
      ];
      await store.ensureIndexes('named', spec);
      await store.ensureIndexes('named', spec);
      await store.ensureIndexes('named', [...spec, { name: 'by_tag', keys: { tag: 1 } }]);
      await store.ping();
      const c = store.collection('named');
      await c.updateOne({ _id: '1' }, { $set: { org: 'a', name: 'n' } }, { upsert: true });
      await assert.rejects(
        c.updateOne({ _id: '2' }, { $set: { org: 'a', name: 'n' } }, { upsert: true }),
        DuplicateKeyError,
      );
      await c.updateOne({ _id: '3' }, { $set: { org: 'b', name: 'n' } }, { upsert: true });
      assert.equal(await c.count({}), 2);
    });

    it('updates and deletes many', async () => {
      const c = store.collection('many');
      for (const id of ['a', 'b', 'c'])
        await c.updateOne({ _id: id }, { $set: { g: id === 'c' ? 2 : 1 } }, { upsert: true });
      const r = await c.updateMany({ g: 1 }, { $set: { flagged: true } });
      assert.equal(r.matched, 2);
      assert.equal(await c.count({ flagged: true }), 2);
      assert.equal(await c.deleteMany({ g: 1 }), 2);
      assert.deepEqual(
        (await c.find({})).map((d) => d._id),
        ['c'],
      );
    });

    it('never lets a caller change the store through a result', async () => {
      const c = store.collection('copies');
      await c.updateOne({ _id: 'k' }, { $set: { v: 1, nested: { w: 1 } } }, { upsert: true });
      const doc = await c.findOne({ _id: 'k' });
      // A copy takes the change; a stored (frozen) document refuses it. Either way the store keeps its value.
      try {
        doc!.v = 99;
        (doc!.nested as { w: number }).w = 99;
      } catch (error) {
        assert.ok(error instanceof TypeError);
      }
      assert.deepEqual(await c.findOne({ _id: 'k' }), { _id: 'k', v: 1, nested: { w: 1 } });
      await c.updateOne({ _id: 'k' }, { $set: { 'nested.w': 2 } });
      assert.deepEqual(await c.findOne({ _id: 'k' }), { _id: 'k', v: 1, nested: { w: 2 } });
    });

    it('drops a collection and lists collections', async () => {
      const c = store.collection('dropme');
      await c.updateOne({ _id: 'z' }, { $set: { v: 1 } }, { upsert: true });
      assert.ok((await store.listCollections()).includes('dropme'));
      await store.dropCollection('dropme');
      await store.dropCollection('dropme');
      assert.equal(await c.count({}), 0);
    });

    it('inserts write-once documents, leaving those already there as they are; another unique key refuses', async () => {
      const c = store.collection('entries');
      await store.ensureIndexes('entries', [{ name: 'by_key', keys: { key: 1 }, unique: true }]);
      assert.equal(
        await c.insertOnce([
          { _id: 'e1', key: 1, v: 'first' },
          { _id: 'e2', key: 2, v: 'first' },
        ]),
        2,
      );
      // A replay of e2 (with whatever it says) changes nothing, and e3 after it still lands.
      assert.equal(
        await c.insertOnce([
          { _id: 'e2', key: 2, v: 'again' },
          { _id: 'e3', key: 3, v: 'first' },
        ]),
        1,
      );
      assert.deepEqual(
        (await c.find({}, { sort: { key: 1 } })).map((d) => [d._id, d.v]),
        [
          ['e1', 'first'],
          ['e2', 'first'],
          ['e3', 'first'],
        ],
      );
      await assert.rejects(c.insertOnce([{ _id: 'e4', key: 1, v: 'clash' }]), DuplicateKeyError);
      assert.equal(await c.findOne({ _id: 'e4' }), null);
      const write = { collection: 'entries', id: 'e5', update: { $set: { key: 5 } }, once: true as const };
      assert.equal(await applyOnce(store, write, 9), true);
      assert.equal(await applyOnce(store, write, 9), false);
      await applyAllOnce(store, 'entries', [
        { write, position: 9 },
        { write: { ...write, id: 'e6', update: { $set: { key: 6 } } }, position: 10 },
      ]);
      assert.deepEqual(await c.findOne({ _id: 'e6' }), { _id: 'e6', key: 6, _pos: 10 });
    });

    it('applies a projection write once per position (replays are no-ops)', async () => {
      const write = { collection: 'guarded', id: 'doc', update: { $inc: { n: 1 } } };
      assert.equal(await applyOnce(store, write, 5), true);
      assert.equal(await applyOnce(store, write, 5), false);
      assert.equal(await applyOnce(store, write, 3), false);
      assert.equal(await applyOnce(store, write, 7), true);
      assert.deepEqual(await store.collection('guarded').findOne({ _id: 'doc' }), {
        _id: 'doc',
        n: 2,
        _pos: 7,
      });
    });

    it('applies a run of writes in bulk once each, skipping ones applied before', async () => {
      const w = (id: string, position: number) => ({
        write: { collection: 'bulk', id, update: { $inc: { n: 1 }, $push: { seen: position } } },
        position,
      });
      await applyAllOnce(store, 'bulk', [w('a', 1), w('b', 2), w('a', 3)]);
      // A replay after a crash: 2 and 3 were applied, 4 and 5 were not.
      await applyAllOnce(store, 'bulk', [w('b', 2), w('a', 3), w('b', 4), w('a', 5)]);
      const docs = await store.collection('bulk').find({}, { sort: { _id: 1 } });
      assert.deepEqual(docs, [
        { _id: 'a', n: 3, seen: [1, 3, 5], _pos: 5 },
        { _id: 'b', n: 2, seen: [2, 4], _pos: 4 },
      ]);
      const outcome = await store.collection('plain').bulkUpdate([
        { filter: { _id: 'x' }, update: { $set: { v: 1 } }, upsert: true },
        { filter: { _id: 'y' }, update: { $set: { v: 2 } }, upsert: true },
      ]);
      assert.deepEqual(outcome, {});
      assert.equal(await store.collection('plain').count({}), 2);
    });

    it('applies long bulks in order and reports where a unique index refused one', async () => {
      await store.ensureIndexes('long', [{ name: 'code', keys: { code: 1 }, unique: true }]);
      // Op 117 inserts a new document whose code another already has.
      const ops = Array.from({ length: 130 }, (_, i) => ({
        filter: { _id: i === 117 ? 'intruder' : `d${i % 40}` },
        update: { $inc: { n: 1 }, $set: { code: i === 117 ? 'c0' : `c${i % 40}` } },
        upsert: true,
      }));
      const outcome = await store.collection('long').bulkUpdate(ops);
      assert.ok(outcome.failedAt !== undefined && outcome.failedAt <= 117, `failedAt ${outcome.failedAt}`);
      assert.ok(outcome.error instanceof DuplicateKeyError);
      const docs = await store.collection('long').find({}, { sort: { n: -1, _id: 1 } });
      assert.equal(docs.length, 40);
      assert.equal(
        docs.reduce((sum, d) => sum + (d.n as number), 0),
        117,
        'every op before the refused one applied, none after',
      );
    });
  });
}
