import type { Doc, DocReads } from '#des/read-store';
import { REPOS, repoId } from './repos.projection';

/** The repository named `name` (registered by the trails that name it), or null. */
export function repoNamed(reads: DocReads, org: string, name: string): Promise<Doc | null> {
  return reads.get(REPOS, repoId(org, name));
}
