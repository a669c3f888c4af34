/** What `#des/tags` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { RESOURCE_TYPES } from './resource-types';
export { tagsFeature } from './tags.module';
