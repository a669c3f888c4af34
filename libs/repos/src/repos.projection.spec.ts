import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { repoInnerId } from './repo-identity';
import { reposProjection } from './repos.projection';

const { given } = projectionSpec(reposProjection);
const repo = { name: 'acme/shop', url: 'https://git.example/acme/shop', provider: 'github', id: '101' };
const id = repoInnerId(repo);

describe('repos projection', () => {
  it('registers a repository from the trails and artifacts that name it, once, by its id here', async () => {
    await given(
      { stream: 'trail-acme/shop/t1', type: 'trail_reported', data: { name: 't1', repo_info: repo } },
      {
        stream: 'trail-acme/shop/t1',
        type: 'artifact_reported',
        data: { fingerprint: 'f', repo_info: repo },
      },
      { stream: 'trail-acme/shop/t2', type: 'trail_reported', data: { name: 't2', repo_info: null } },
    ).then('repos', [
      { _id: `acme/${id}`, id, org: 'acme', name: 'acme/shop', provider: 'github', repo_id: '101', tags: [] },
    ]);
  });

  it('keeps apart two repositories of one name with different provider ids, and one without an id', async () => {
    const fork = { ...repo, id: 202 };
    const unnamed = { name: 'acme/shop', provider: 'gitlab' };
    await given(
      ...[repo, fork, unnamed].map((r, i) => ({
        stream: `trail-acme/shop/t${i}`,
        type: 'trail_reported',
        data: { name: `t${i}`, repo_info: r },
      })),
    ).then(
      'repos',
      [
        { _id: `acme/${repoInnerId(unnamed)}`, provider: 'gitlab', repo_id: null },
        { _id: `acme/${id}`, repo_id: '101' },
        { _id: `acme/${repoInnerId(fork)}`, repo_id: '202' },
      ].sort((a, b) => a._id.localeCompare(b._id)),
    );
  });

  it('tags a repository through its own stream, keeping the tags when a trail names it again', async () => {
    const tagged = (tags: Record<string, string>) => ({
      stream: `repo-acme/${id}`,
      type: 'tags_changed',
      data: { tags },
    });
    const named = {
      stream: 'trail-acme/shop/t1',
      type: 'trail_reported',
      data: { name: 't1', repo_info: repo },
    };
    await given(named, tagged({ owner: 'web' }), named).then('repos', [
      { _id: `acme/${id}`, url: repo.url, tags: [{ key: 'owner', value: 'web' }] },
    ]);
  });

  it('applies a tag change of a log written before repositories had ids (a stream keyed by the name) to each of that name', async () => {
    await given(
      { stream: 'trail-acme/shop/t1', type: 'trail_reported', data: { name: 't1', repo_info: repo } },
      { stream: 'repo-acme/acme/shop', type: 'tags_changed', data: { tags: { owner: 'api' } } },
    ).then('repos', [{ _id: `acme/${id}`, tags: [{ key: 'owner', value: 'api' }] }]);
  });
});
