export * from './event-store.port';
export * from './microseconds';
export * from './ledger';
export { DEFAULT_MAX_APPEND_SIZE, appendSize } from './append-size';
export { SqliteEventStore } from './sqlite-event-store';
export { KurrentDbEventStore } from './kurrentdb-event-store';
export { SCHEMA_VERSION, type Upcaster, UpcastingEventStore } from './upcasting';
