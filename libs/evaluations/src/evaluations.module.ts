import { evaluationUpcasters } from './evaluation.upcasters';
import { Module } from '@nestjs/common';
import { join } from 'node:path';
import type { Config } from '#des/platform';
import { CONFIG, type ServiceFeature } from '#des/platform';
import { evaluationDispatch } from './evaluation-dispatch.reaction';
import { evaluationsProjection } from './evaluations.projection';
import { OpaCompiler, opaPath, PolicyEvaluator } from '#des/policy-engine';
import { EvaluationConsumer, POLICY_COMPILER, POLICY_EVALUATOR } from './evaluation.consumer';
import { EvaluationsController } from './evaluations.controller';
import { PendingEvaluations } from './pending-evaluations';
import { TrailTimeMachineModule } from '#des/trails';

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
        new PolicyEvaluator({
          budgetMs: config.policyBudgetMs,
          threads: config.policyThreads,
          nice: config.tenantPrograms.programNice,
        }),
      inject: [CONFIG],
    },
    EvaluationConsumer,
    PendingEvaluations,
  ],
  exports: [EvaluationConsumer],
})
export class EvaluationsModule {}

export const evaluationsFeature: ServiceFeature = {
  module: EvaluationsModule,
  projections: [evaluationsProjection],
  reactions: [evaluationDispatch],
  queueConsumers: [EvaluationConsumer],
  upcasters: evaluationUpcasters,
};
