/** What `#des/service` publishes to the other libraries, the apps and the tests; the rest is its own. */
export {
  allProjections,
  allQueueConsumers,
  allReactions,
  allUpcasters,
  projectorFeatureModules,
  workerFeatureModules,
} from './features';
export { createHttpApp, stopHttpApp } from './http-app';
export { JsonReplyAdapter } from './json-reply-adapter';
export { allowedMethods } from './openapi-exact';
export { WORKSPACE_DIR } from './workspace';
