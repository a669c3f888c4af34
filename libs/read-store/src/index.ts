/** What `#des/read-store` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { docReads, type DocReads } from './doc-reads';
export { updatedDocument } from './document-update';
export { MemoryReadStore } from './memory-read-store';
export { MongoReadStore, isMongoUnavailable, translateMongoError } from './mongo-read-store';
export { chargeReadsTo, currentScope, inReadScope, scopeRequestId, TenantReadGate } from './tenant-read-gate';
export { loadReadModels, saveReadModels } from './read-model-file';
export {
  DuplicateKeyError,
  type BulkUpdate,
  type Doc,
  type Filter,
  type IndexSpec,
  type ReadStore,
  type Update,
} from './read-store.port';
export { MongoBlobs } from './mongo-blobs';
