export * from './policies.module';
export * from './policy.commands';
export * from './policy.decider';
export * from './policy-document';
export * from './policy-expression';
export * from './policies.projection';
export * from './policy-evaluation';
