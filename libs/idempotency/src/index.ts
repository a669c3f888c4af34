export * from './idempotency.module';
export * from './idempotency.decider';
export * from './idempotency.commands';
