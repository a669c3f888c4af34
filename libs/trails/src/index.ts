export * from './trails.module';
export * from './trails.projection';
export * from './trail.events';
export * from './trail.view';
export * from './commit';
export * from './trail-time-machine';
export * from './pdf-renderer.provider';
export * from './trail.commands';
