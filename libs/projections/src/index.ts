export * from './projection';
export * from './progress';
export * from './guarded-write';
export * from './projector';
export * from './lease';
export { streamStatsProjection } from './stream-stats.projection';
export * from './reaction';
export * from './reaction-checkpoint-file';
export * from './checkpoint-positions';
