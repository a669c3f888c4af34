import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideTagChange,
  effectiveTagChange,
  meetsTags,
  storedTags,
  storedTagsFilter,
  TAG_KEY,
  tagConditions,
  tagsOf,
  withTagChange,
} from './tags';

describe('tags', () => {
  const tags = { team: 'core', tier: '1' };

  it('keeps only what a patch changes', () => {
    assert.deepEqual(
      effectiveTagChange(tags, { set_tags: { team: 'core', owner: 'ann' }, remove_tags: ['tier', 'nope'] }),
      {
        set_tags: { owner: 'ann' },
        remove_tags: ['tier'],
      },
    );
    assert.equal(effectiveTagChange(tags, { set_tags: { team: 'core' }, remove_tags: ['nope'] }), null);
  });

  it('removes a key that a patch both sets and removes', () => {
    const change = effectiveTagChange(tags, { set_tags: { team: 'web' }, remove_tags: ['team'] });
    assert.deepEqual(change, { set_tags: {}, remove_tags: ['team'] });
    assert.deepEqual(withTagChange(tags, change!), { tier: '1' });
  });

  it('applies a change', () => {
    assert.deepEqual(withTagChange(tags, { set_tags: { tier: '2', owner: 'ann' }, remove_tags: ['team'] }), {
      tier: '2',
      owner: 'ann',
    });
  });

  it('takes keys that start with a letter or digit and hold letters, digits and - _ . ~', () => {
    for (const key of ['team', 'a.b-c_d~e', '9lives']) assert.ok(TAG_KEY.test(key), key);
    for (const key of ['-x', '', 'a b', 'a/b', '.hidden']) assert.ok(!TAG_KEY.test(key), key);
  });

  it('decides one tags_changed with the tags after it, or nothing', () => {
    assert.deepEqual(decideTagChange(tags, { set_tags: { owner: 'ann' }, remove_tags: ['tier'] }), [
      {
        type: 'tags_changed',
        data: { set_tags: { owner: 'ann' }, remove_tags: ['tier'], tags: { team: 'core', owner: 'ann' } },
      },
    ]);
    assert.deepEqual(decideTagChange(tags, { set_tags: { team: 'core' }, remove_tags: [] }), []);
  });

  it('stores tags as pairs (a key may hold a ".") and shows them as an object again', () => {
    const dotted = { 'app.kubernetes.io/name': 'x', 'a.b': 'c' };
    assert.deepEqual(storedTags({ b: '2', a: '1' }), [
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    assert.deepEqual(tagsOf(storedTags(dotted)), dotted);
    assert.deepEqual(tagsOf(undefined), {});
    assert.deepEqual(tagsOf({ legacy: 'object' }), { legacy: 'object' });
  });
});

describe('tag conditions (?tag=)', () => {
  it('reads key or key:value (the value may hold a colon) and checks every one', () => {
    const conditions = tagConditions(['team', 'tier:1', 'url:http://x']);
    assert.deepEqual(conditions, [
      { key: 'team' },
      { key: 'tier', value: '1' },
      { key: 'url', value: 'http://x' },
    ]);
    assert.equal(meetsTags({ team: 'web', tier: '1', url: 'http://x' }, conditions), true);
    assert.equal(meetsTags({ team: 'web', tier: '2', url: 'http://x' }, conditions), false);
    assert.equal(meetsTags({ tier: '1', url: 'http://x' }, conditions), false);
    assert.equal(meetsTags({}, []), true);
  });

  it('as a read-model filter on stored pairs: keys, and pairs in stored order', () => {
    assert.deepEqual(storedTagsFilter(['team', 'tier:1']), {
      'tags.key': { $all: ['team'] },
      tags: { $all: [{ key: 'tier', value: '1' }] },
    });
    assert.deepEqual(storedTagsFilter([]), {});
  });
});
