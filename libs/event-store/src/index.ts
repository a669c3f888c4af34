export * from './event-store.port';
export * from './microseconds';
export { SqliteEventStore } from './sqlite-event-store';
export { KurrentDbEventStore } from './kurrentdb-event-store';
