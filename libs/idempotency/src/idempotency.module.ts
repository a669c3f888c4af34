import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { ServiceFeature } from '#des/platform';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/** `Idempotency-Key` on every write of the API. */
@Module({
  providers: [{ provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor }],
})
export class IdempotencyModule {}

/** Its records live only in the log: no read model. */
export const idempotencyFeature: ServiceFeature = { module: IdempotencyModule };
