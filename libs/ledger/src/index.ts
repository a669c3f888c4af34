/** What `#des/ledger` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { ledgerFeature } from './ledger.module';
