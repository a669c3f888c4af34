import { tagsOf } from '#des/kernel';
import type { Doc, DocReads } from '#des/read-store';
import { looksLikeRepoId } from './repo-identity';
import { REPOS, repoDocId } from './repos.projection';

/** What a name or an id names among an organization's repositories. */
export type RepoLookup =
  | { found: Doc }
  | { found: null; reason: 'none' }
  | { found: null; reason: 'ambiguous'; providers: string[] };

/** The repositories named `name` (optionally of one provider), the first registered first. */
export async function reposNamed(
  reads: DocReads,
  org: string,
  name: string,
  provider?: string,
): Promise<Doc[]> {
  const docs = await reads.find(REPOS, { org, name, ...(provider ? { provider } : {}) });
  return docs.sort((a, b) => Number(a.registered_at ?? 0) - Number(b.registered_at ?? 0));
}

/**
 * The repository an id here (`repo_…`) or a name gives. A name several
 * repositories share is ambiguous unless `provider` is given; then the first
 * registered of that provider is the one.
 */
export async function repoNamedOrIdentified(
  reads: DocReads,
  org: string,
  nameOrId: string,
  provider?: string,
): Promise<RepoLookup> {
  if (looksLikeRepoId(nameOrId)) {
    const doc = await reads.get(REPOS, repoDocId(org, nameOrId));
    if (doc) return { found: doc };
  }
  const named = await reposNamed(reads, org, nameOrId, provider);
  if (named.length === 0) return { found: null, reason: 'none' };
  if (named.length === 1 || provider) return { found: named[0] };
  const providers = [...new Set(named.map((d) => String(d.provider ?? 'none')))].sort();
  return { found: null, reason: 'ambiguous', providers };
}

/** The tags a repository shows now (see `RepoCommand.shown`). */
export const repoTags = (doc: Doc) => tagsOf(doc.tags);
