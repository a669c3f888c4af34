/** What `#des/projections` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { positionsFrom } from './checkpoint-positions';
export { POSITION_FIELD, applyAllOnce, applyOnce, withoutInternals } from './guarded-write';
export { Lease } from './lease';
export { CheckpointPoller, type ProjectionProgress } from './progress';
export {
  CHECKPOINTS,
  aggregateEvent,
  declareCollections,
  inSources,
  type DocWrite,
  type Projection,
  type ProjectionReads,
  type StreamSources,
} from './projection';
export { type ProjectionFailure } from './projection-failure';
export { Projector } from './projector';
export { derivedId, reactionMetadata, type Reaction, type ReactionOutput } from './reaction';
export { reactionCheckpointFile } from './reaction-checkpoint-file';
export { streamStatsProjection } from './stream-stats.projection';
