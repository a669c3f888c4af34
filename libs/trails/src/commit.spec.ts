import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commitOf } from './commit';

const full = {
  sha1: 'abc123',
  message: 'fix checkout',
  author: 'ada',
  branch: 'main',
  timestamp: 1_790_000_000,
  url: 'https://git.example/acme/shop/commit/abc123',
};

describe('commitOf: the spec commit object of an artifact', () => {
  it("completes a bare sha1 with its trail's commit info when they name the same commit", () => {
    assert.deepEqual(commitOf({ git_commit: 'abc123' }, { git_commit_info: full }), full);
  });

  it("keeps the artifact's own fields over the trail's", () => {
    assert.deepEqual(
      commitOf({ git_commit_info: { sha1: 'abc123', author: 'grace' } }, { git_commit_info: full }),
      { ...full, author: 'grace' },
    );
  });

  it('ignores a trail commit that is another commit, and fills what nobody said with null', () => {
    assert.deepEqual(commitOf({ git_commit: 'def456' }, { git_commit_info: full }), {
      sha1: 'def456',
      message: null,
      author: null,
      branch: null,
      timestamp: null,
      url: null,
    });
  });

  it("takes the trail's commit when the artifact names none, and null when nobody does", () => {
    assert.deepEqual(commitOf({ git_commit: null, git_commit_info: null }, { git_commit_info: full }), full);
    assert.equal(commitOf({ git_commit: null }, null), null);
  });
});
