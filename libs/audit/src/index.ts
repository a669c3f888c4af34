/** What `#des/audit` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { auditFeature } from './audit.module';
export { changeId, populationSha256, sampleOf } from './change-population';
