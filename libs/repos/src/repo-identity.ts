import { createHash } from 'node:crypto';

/** What a trail or an artifact says of its repository (`repo_info`, as the Kosli CLI sends it). */
export interface NamedRepo {
  name: string;
  url?: string | null;
  provider?: string | null;
  /** The provider's own id of the repository (GitHub's repository id …). */
  id?: string | number | null;
}

/**
 * A repository's id here: one per provider and provider id, or per provider
 * and name when the provider's id is not given. Two repositories may share a
 * name (a fork on another provider, a repository deleted and made again);
 * they are told apart by this id, which the API shows as `id` and which
 * `PATCH /tags/{org}/repo/{id}` and `GET /repos/{org}/{name}?id=` take.
 */
export function repoInnerId(repo: NamedRepo): string {
  const provider = repo.provider ?? '';
  const external = repo.id === undefined || repo.id === null || repo.id === '' ? null : String(repo.id);
  const key = external === null ? `name\n${provider}\n${repo.name}` : `id\n${provider}\n${external}`;
  return `repo_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/** Whether `text` has the shape of a repository's id here (names never do: they hold no `_`-prefixed hex only). */
export const looksLikeRepoId = (text: string) => /^repo_[0-9a-f]{24}$/.test(text);
