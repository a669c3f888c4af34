/** What `#des/repos` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { ChangeRepo } from './repo.commands';
export { reposFeature } from './repos.module';
export { repoNamedOrIdentified, repoTags, type RepoLookup } from './repos.queries';
export { ambiguousRepo, repoNotFound } from './repo-errors';
export { repoInnerId } from './repo-identity';
