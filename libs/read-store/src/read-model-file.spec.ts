import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MemoryReadStore } from './memory-read-store';
import { loadReadModels, ReadModelFileMeta, saveReadModels } from './read-model-file';

const meta: ReadModelFileMeta = {
  code: 'abc',
  position: 42,
  eventId: 'e42',
  savedAt: '2026-11-23T00:00:00Z',
};

async function filled(): Promise<MemoryReadStore> {
  const store = new MemoryReadStore();
  await store.ensureIndexes('envs', [{ name: 'by_name', keys: { org: 1, name: 1 }, unique: true }]);
  // More than one chunk (5000 documents each), in an order that is not the ids'.
  for (let i = 12_000; i > 0; i--) {
    await store
      .collection('envs')
      .updateOne({ _id: `e${i}` }, { $set: { org: 'acme', name: `n${i}`, n: i } }, { upsert: true });
  }
  await store.collection('empty_but_declared').count({});
  await store.ensureIndexes('declared', [{ name: 'u', keys: { k: 1 }, unique: true }]);
  await store
    .collection('_checkpoints')
    .updateOne({ _id: 'p' }, { $set: { position: 42 } }, { upsert: true });
  return store;
}

const contents = async (store: MemoryReadStore) =>
  Object.fromEntries(
    await Promise.all(
      (await store.listCollections())
        .sort()
        .map(async (c) => [c, await store.collection(c).find({})] as const),
    ),
  );

describe('saved read models (embedded mode)', () => {
  it('load back every collection, document order, declared unique index and the meta', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'des-rm-')), 'read-models.bin');
    const store = await filled();
    const saved = await saveReadModels(path, store, meta);
    assert.equal(saved.documents, 12_001);

    const loaded = new MemoryReadStore();
    await loaded.collection('stale').updateOne({ _id: 'x' }, { $set: { a: 1 } }, { upsert: true });
    const outcome = await loadReadModels(path, loaded, 'abc');
    assert.deepEqual(outcome, { loaded: true, meta, documents: 12_001 });
    assert.deepEqual(await contents(loaded), await contents(store));
    assert.deepEqual((await loaded.listCollections()).sort(), ['_checkpoints', 'declared', 'envs']);
    // The unique index came back: a second `n5` is refused.
    await assert.rejects(
      loaded
        .collection('envs')
        .updateOne({ _id: 'other' }, { $set: { org: 'acme', name: 'n5' } }, { upsert: true }),
      /Duplicate key/,
    );
    // Loaded documents are frozen like any stored one.
    const doc = await loaded.collection('envs').findOne({ _id: 'e1' });
    assert.ok(Object.isFrozen(doc));
  });

  it('refuse a missing, cut short, damaged or stale file, leaving the store empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'des-rm-'));
    const path = join(dir, 'read-models.bin');
    const target = new MemoryReadStore();
    assert.deepEqual(await loadReadModels(path, target, 'abc'), {
      loaded: false,
      reason: 'no saved read models',
    });

    await saveReadModels(path, await filled(), meta);
    const whole = readFileSync(path);
    assert.match(
      ((await loadReadModels(path, target, 'other code')) as { reason: string }).reason,
      /projected by other code/,
    );

    writeFileSync(path, whole.subarray(0, whole.length - 100));
    assert.match(((await loadReadModels(path, target, 'abc')) as { reason: string }).reason, /incomplete/);

    const flipped = Buffer.from(whole);
    flipped[1000] ^= 0xff;
    writeFileSync(path, flipped);
    assert.match(((await loadReadModels(path, target, 'abc')) as { reason: string }).reason, /damaged/);
    assert.equal(target.size, 0);
  });

  it('a save that fails leaves the previous file as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'des-rm-'));
    const path = join(dir, 'read-models.bin');
    await saveReadModels(path, await filled(), meta);
    const before = readFileSync(path);
    const broken = new MemoryReadStore();
    await broken.collection('c').updateOne({ _id: 'x' }, { $set: { f: 1 } }, { upsert: true });
    // A document v8 cannot serialize (a function) fails the save midway.
    (broken as unknown as { exportChunks: () => unknown }).exportChunks = function* () {
      yield { collection: 'c', indexes: [], docs: [{ _id: 'x', f: () => 1 }] };
    };
    await assert.rejects(saveReadModels(path, broken, meta));
    assert.deepEqual(readFileSync(path), before);
  });
});
