import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryReadStore, type ReadStore } from '#des/read-store';
import { API_KEYS, SERVICE_ACCOUNTS } from './accounts.projection';
import { KeyLookups } from './key-lookups';

/** The in-memory read models, counting the key lookups that reach them. */
async function readModels() {
  const store = new MemoryReadStore();
  await store
    .collection(API_KEYS)
    .updateOne(
      { _id: 'k1' },
      { $set: { hash: 'h1', org: 'acme', service_account: 'ci', expires_at: 0, revoked: false } },
      { upsert: true },
    );
  await store
    .collection(SERVICE_ACCOUNTS)
    .updateOne({ _id: 'acme/ci' }, { $set: { privilege: 'member' } }, { upsert: true });
  let keyReads = 0;
  const counting = {
    collection: (name: string) => {
      const c = store.collection(name);
      if (name !== API_KEYS) return c;
      return { ...c, findOne: (f: never) => (keyReads++, c.findOne(f)) };
    },
  } as unknown as ReadStore;
  return { store, counting, keyReads: () => keyReads };
}

describe('KeyLookups', () => {
  it('lets requests presenting one key at the same time share one lookup', async () => {
    const { counting, keyReads } = await readModels();
    const keys = new KeyLookups(counting);
    const holders = await Promise.all([keys.holderOf('h1'), keys.holderOf('h1'), keys.holderOf('h1')]);
    assert.equal(keyReads(), 1);
    for (const h of holders)
      assert.deepEqual(h && { org: h.key.org, privilege: h.privilege }, { org: 'acme', privilege: 'member' });
    // Once answered, the next request reads again: a store that cannot tell its changes (a shared server) keeps nothing.
    await keys.holderOf('h1');
    assert.equal(keyReads(), 2);
    assert.equal(await keys.holderOf('unknown'), null);
  });

  it('never shares a lookup begun before this process revoked a key', async () => {
    const { store, counting, keyReads } = await readModels();
    const keys = new KeyLookups(counting);
    const before = keys.holderOf('h1');
    await store.collection(API_KEYS).updateOne({ _id: 'k1' }, { $set: { revoked: true } });
    keys.keyRevoked();
    const after = await keys.holderOf('h1');
    assert.equal(keyReads(), 2, 'a second lookup, not the one in flight');
    assert.equal(after?.key.revoked, true);
    await before;
  });

  it('keeps an answer until the keys or the accounts change, where the read models are held in this process', async () => {
    const { store } = await readModels();
    let keyReads = 0;
    const keysCollection = store.collection(API_KEYS);
    const counting = {
      collection: (name: string) =>
        name !== API_KEYS
          ? store.collection(name)
          : {
              findOne: (f: never) => (keyReads++, keysCollection.findOne(f)),
              changeMark: () => keysCollection.changeMark!(),
            },
    } as unknown as ReadStore;
    const keys = new KeyLookups(counting);
    await keys.holderOf('h1');
    await keys.holderOf('h1');
    assert.equal(keyReads, 1, 'the second request is answered what the first read');

    await keysCollection.updateOne({ _id: 'k1' }, { $set: { revoked: true } });
    assert.equal((await keys.holderOf('h1'))?.key.revoked, true, 'a revocation is seen at once');
    assert.equal(keyReads, 2);

    await store.collection(SERVICE_ACCOUNTS).updateOne({ _id: 'acme/ci' }, { $set: { privilege: 'viewer' } });
    assert.equal(
      (await keys.holderOf('h1'))?.privilege,
      'viewer',
      "so is a change of the account's privilege",
    );

    assert.equal(await keys.holderOf('h2'), null);
    const reads = keyReads;
    assert.equal(await keys.holderOf('h2'), null);
    assert.equal(keyReads, reads, 'an unknown key is kept unknown…');
    await keysCollection.updateOne(
      { _id: 'k2' },
      { $set: { hash: 'h2', org: 'acme', service_account: 'ci', expires_at: 0, revoked: false } },
      { upsert: true },
    );
    assert.equal((await keys.holderOf('h2'))?.key._id, 'k2', '…until a key is added');
  });
});
