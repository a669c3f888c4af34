export * from './actions.module';
export * from './action.decider';
export * from './delivery.decider';
export * from './action.commands';
export * from './actions.projection';
export * from './signing';
export * from './notices';
