/** What `#des/event-store` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { appendSize, eventSize } from './append-size';
export {
  EventTooLargeError,
  StoreUnavailableError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type Following,
  type KeepIndexOptions,
  type ReadStats,
  type StoredEvent,
} from './event-store.port';
export { KurrentDbEventStore } from './kurrentdb-event-store';
export { canonicalTextOf, orgOf } from './canonical-text';
export { eventAt } from './event-at';
export { scopeFor } from './index-scopes';
export { microsToSeconds, nowMicros, secondsToMicros } from './microseconds';
export { SqliteEventStore } from './sqlite-event-store';
export { nextTurn, setTurnOwner, TimeSlice } from './time-slice';
export { StreamFolds, type Fold, type FoldUntil } from './stream-folds';
export { SCHEMA_VERSION, UpcastingEventStore, type Upcaster } from './upcasting';
