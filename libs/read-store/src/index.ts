export * from './read-store.port';
export { MemoryReadStore } from './memory-read-store';
export { MongoReadStore, isMongoUnavailable, translateMongoError } from './mongo-read-store';
export type { MemoryChunk } from './memory-read-store';
export * from './read-model-file';
export { updatedDocument } from './document-update';
