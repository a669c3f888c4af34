import { storedTags } from '#des/kernel';
import { aggregateEvent, type DocWrite, type Projection, type ProjectionReads } from '#des/projections';
import type { TrailEvent } from '#des/trails';
import type { RepoEvent } from './repo.decider';
import { looksLikeRepoId, type NamedRepo, repoInnerId } from './repo-identity';

export const REPOS = 'repos';
export const repoDocId = (org: string, innerId: string) => `${org}/${innerId}`;

function registered(org: string, repo: NamedRepo | null, at: number): DocWrite[] {
  if (!repo?.name) return [];
  const id = repoInnerId(repo);
  const external = repo.id === undefined || repo.id === null || repo.id === '' ? null : String(repo.id);
  return [
    {
      collection: REPOS,
      id: repoDocId(org, id),
      update: {
        $set: {
          org,
          id,
          name: repo.name,
          url: repo.url ?? null,
          provider: repo.provider ?? null,
          repo_id: external,
        },
        $setOnInsert: { tags: [], registered_at: at },
      },
    },
  ];
}

/**
 * The repositories a tag change is for. Its stream is `repo-<org>/<id>`; a
 * log written before repositories had ids keyed it by the name, which then
 * tags every repository of that name.
 */
async function taggedDocs(reads: ProjectionReads, org: string, key: string): Promise<string[]> {
  if (looksLikeRepoId(key)) return [repoDocId(org, key)];
  const named = await reads.find(REPOS, { org, name: key });
  return named.map((d) => d._id as string);
}

/**
 * Repositories: registered from the `repo_info` of trails and artifacts,
 * tagged through their own stream (`repo-<org>/<id>`).
 */
export const reposProjection: Projection = {
  name: 'repos',
  // A repository is named by the trails that report it, and tagged through its own stream.
  sources: (org) => ({ prefixes: [`repo-${org}/`, `trail-${org}/`] }),
  collections: [
    {
      name: REPOS,
      indexes: [
        { name: 'by_org', keys: { org: 1, name: 1 } },
        { name: 'by_repo_id', keys: { org: 1, repo_id: 1 } },
      ],
    },
  ],
  async project(stored, reads) {
    const tagged = aggregateEvent<RepoEvent>(stored, 'repo');
    if (tagged) {
      const { org, id: key, event } = tagged;
      const tags = storedTags(event.data.tags);
      return (await taggedDocs(reads, org, key)).map((id) => ({
        collection: REPOS,
        id,
        update: { $set: { tags } },
      }));
    }
    if (!stored.stream.startsWith('trail-')) return [];
    const org = stored.metadata.org as string;
    const event = { type: stored.type, data: stored.data } as TrailEvent;
    switch (event.type) {
      case 'trail_reported':
      case 'trail_updated':
      case 'artifact_reported':
        return registered(org, event.data.repo_info as NamedRepo | null, stored.recordedAt);
      default:
        return [];
    }
  },
};
