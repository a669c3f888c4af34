export * from './flows.module';
export * from './flows.projection';
export * from './flow.decider';
export * from './flow-template';
export * from './flow.commands';
