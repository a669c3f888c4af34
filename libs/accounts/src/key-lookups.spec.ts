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
    // Once answered, the next request reads again: nothing is kept.
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
});
