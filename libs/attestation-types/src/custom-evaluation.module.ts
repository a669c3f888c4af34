import { Module } from '@nestjs/common';
import { CONFIG, type Config } from '#des/platform';
import { CustomEvaluator } from './custom-evaluation';

/** The one pool of threads custom types' schemas and jq rules run on, for the types' API and attestations. */
@Module({
  providers: [
    {
      provide: CustomEvaluator,
      useFactory: (config: Config) => new CustomEvaluator(config.tenantPrograms),
      inject: [CONFIG],
    },
  ],
  exports: [CustomEvaluator],
})
export class CustomEvaluationModule {}
