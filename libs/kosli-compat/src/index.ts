/** What `#des/kosli-compat` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { kosliCompatFeature } from './kosli-compat.module';
