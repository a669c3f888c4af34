export * from './read-store.port';
export { MemoryReadStore } from './memory-read-store';
export { MongoReadStore } from './mongo-read-store';
