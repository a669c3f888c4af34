/** What `#des/idempotency` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { ChangeIdempotencyKey } from './idempotency.commands';
export { idempotencyFeature } from './idempotency.module';
export { IdempotencyInterceptor } from './idempotency.interceptor';
