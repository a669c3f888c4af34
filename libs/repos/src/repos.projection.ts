import { storedTags } from '#des/kernel';
import { aggregateEvent, type DocWrite, type Projection } from '#des/projections';
import type { RepoInfo, TrailEvent } from '#des/trails';
import type { RepoEvent } from './repo.decider';

export const REPOS = 'repos';
export const repoId = (org: string, name: string) => `${org}/${name}`;

function registered(org: string, repo: RepoInfo | null): DocWrite[] {
  if (!repo?.name) return [];
  return [
    {
      collection: REPOS,
      id: repoId(org, repo.name),
      update: {
        $set: { org, name: repo.name, url: repo.url ?? null, provider: repo.provider ?? null },
        $setOnInsert: { tags: [] },
      },
    },
  ];
}

/**
 * Repositories: registered from the `repo_info` of trails and artifacts,
 * tagged through their own stream (`repo-<org>/<name>`).
 */
export const reposProjection: Projection = {
  name: 'repos',
  // A repository is named by the trails that report it, and tagged through its own stream.
  sources: (org) => ({ prefixes: [`repo-${org}/`, `trail-${org}/`] }),
  collections: [{ name: REPOS, indexes: [{ name: 'by_org', keys: { org: 1, name: 1 } }] }],
  project(stored) {
    const tagged = aggregateEvent<RepoEvent>(stored, 'repo');
    if (tagged) {
      const { org, id: name, event } = tagged;
      // $setOnInsert: a repository tagged before a trail names it again still lists its name.
      return [
        {
          collection: REPOS,
          id: repoId(org, name),
          update: {
            $set: { tags: storedTags(event.data.tags) },
            $setOnInsert: { org, name, url: null, provider: null },
          },
        },
      ];
    }
    if (!stored.stream.startsWith('trail-')) return [];
    const org = stored.metadata.org as string;
    const event = { type: stored.type, data: stored.data } as TrailEvent;
    switch (event.type) {
      case 'trail_reported':
      case 'trail_updated':
      case 'artifact_reported':
        return registered(org, event.data.repo_info);
      default:
        return [];
    }
  },
};
