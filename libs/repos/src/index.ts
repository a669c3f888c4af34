export * from './repos.module';
export * from './repo.commands';
export * from './repo.decider';
export * from './repos.projection';
