/** The answers the API gives when a repository cannot be told from its name. */
export const repoNotFound = (nameOrId: string) => `Repo '${nameOrId}' not found`;

export const ambiguousRepo = (name: string, providers: string[]) =>
  `Multiple repos named '${name}' exist (${providers.join(', ')}). Specify the 'provider' to narrow down the search, or give the repo's id`;
