export * from './environments.module';
export * from './environments.projection';
export * from './environment.decider';
export * from './environment.commands';
export * from './snapshot-ref';
export * from './k8s-report-body';
