export * from './read-store.port';
export { MemoryReadStore } from './memory-read-store';
export { MongoReadStore, isMongoUnavailable, translateMongoError } from './mongo-read-store';
