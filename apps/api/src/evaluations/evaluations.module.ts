import { Module } from '@nestjs/common';
import { join } from 'node:path';
import type { Config } from '../../../../libs/platform/src';
import { CONFIG } from '../../../../libs/platform/src';
import { OpaCompiler } from '../../../../libs/policy-engine/src';
import { EvaluationConsumer, POLICY_BUDGET_MS, POLICY_COMPILER } from './evaluation.consumer';
import { EvaluationsController } from './evaluations.controller';

/** Evaluations: the API and the queue consumer (started by the worker role). */
@Module({
  controllers: [EvaluationsController],
  providers: [
    {
      provide: POLICY_COMPILER,
      useFactory: (config: Config) => new OpaCompiler(join(config.dataDir, 'policy-cache')),
      inject: [CONFIG],
    },
    { provide: POLICY_BUDGET_MS, useFactory: (config: Config) => config.policyBudgetMs, inject: [CONFIG] },
    EvaluationConsumer,
  ],
  exports: [EvaluationConsumer],
})
export class EvaluationsModule {}
