import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { reposProjection } from './repos.projection';

const { given } = projectionSpec(reposProjection);
const repo = { name: 'acme/shop', url: 'https://git.example/acme/shop', provider: 'github' };

describe('repos projection', () => {
  it('registers a repository from the trails and artifacts that name it, once', async () => {
    await given(
      { stream: 'trail-acme/shop/t1', type: 'trail_reported', data: { name: 't1', repo_info: repo } },
      {
        stream: 'trail-acme/shop/t1',
        type: 'artifact_reported',
        data: { fingerprint: 'f', repo_info: repo },
      },
      { stream: 'trail-acme/shop/t2', type: 'trail_reported', data: { name: 't2', repo_info: null } },
    ).then('repos', [
      { _id: 'acme/acme/shop', org: 'acme', name: 'acme/shop', provider: 'github', tags: [] },
    ]);
  });

  it('keeps tags given before a trail names the repository, and after', async () => {
    const tagged = (tags: Record<string, string>) => ({
      stream: 'repo-acme/acme/shop',
      type: 'tags_changed',
      data: { tags },
    });
    await given(tagged({ owner: 'web' }), {
      stream: 'trail-acme/shop/t1',
      type: 'trail_reported',
      data: { name: 't1', repo_info: repo },
    }).then('repos', [
      { _id: 'acme/acme/shop', name: 'acme/shop', url: repo.url, tags: [{ key: 'owner', value: 'web' }] },
    ]);
    await given(
      { stream: 'trail-acme/shop/t1', type: 'trail_reported', data: { name: 't1', repo_info: repo } },
      tagged({ owner: 'api' }),
    ).then('repos', [{ _id: 'acme/acme/shop', url: repo.url, tags: [{ key: 'owner', value: 'api' }] }]);
  });
});
