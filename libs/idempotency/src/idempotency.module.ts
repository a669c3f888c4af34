import { Module } from '@nestjs/common';
import type { ServiceFeature } from '#des/platform';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * `Idempotency-Key` on every write of the API. The HTTP application puts the
 * interceptor on each write route (`applyToWriteRoutes`), not on every route:
 * a read then runs through no interceptor chain at all.
 */
@Module({
  providers: [IdempotencyInterceptor],
  exports: [IdempotencyInterceptor],
})
export class IdempotencyModule {}

/** Its records live only in the log: no read model. */
export const idempotencyFeature: ServiceFeature = { module: IdempotencyModule };
