import { Module } from '@nestjs/common';
import { join } from 'node:path';
import type { Config } from '../../../../libs/platform/src';
import { CONFIG } from '../../../../libs/platform/src';
import { OpaCompiler, opaPath, PolicyEvaluator } from '../../../../libs/policy-engine/src';
import { EvaluationConsumer, POLICY_COMPILER, POLICY_EVALUATOR } from './evaluation.consumer';
import { EvaluationsController } from './evaluations.controller';
import { TrailTimeMachineModule } from '../trails/trail-time-machine';

/** Evaluations: the API and the queue consumer (started by the worker role). */
@Module({
  imports: [TrailTimeMachineModule],
  controllers: [EvaluationsController],
  providers: [
    {
      provide: POLICY_COMPILER,
      useFactory: (config: Config) =>
        new OpaCompiler(join(config.dataDir, 'policy-cache'), opaPath({ OPA_PATH: config.opaPath })),
      inject: [CONFIG],
    },
    {
      provide: POLICY_EVALUATOR,
      useFactory: (config: Config) =>
        new PolicyEvaluator({ budgetMs: config.policyBudgetMs, threads: config.policyThreads }),
      inject: [CONFIG],
    },
    EvaluationConsumer,
  ],
  exports: [EvaluationConsumer],
})
export class EvaluationsModule {}
