import { evaluationUpcasters } from './evaluation.upcasters';
import { Module } from '@nestjs/common';
import { join } from 'node:path';
import type { Config } from '#des/platform';
import { CONFIG, READ_STORE, type ServiceFeature } from '#des/platform';
import { MongoReadStore, type ReadStore } from '#des/read-store';
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
      // Server mode: compiled policies shared by every worker (GridFS), beside each one's disk cache.
      useFactory: (config: Config, reads: ReadStore) =>
        new OpaCompiler(
          join(config.dataDir, 'policy-cache'),
          opaPath({ OPA_PATH: config.opaPath }),
          undefined,
          reads instanceof MongoReadStore ? reads.blobs('policy_cache') : undefined,
        ),
      inject: [CONFIG, READ_STORE],
    },
    {
      provide: POLICY_EVALUATOR,
      useFactory: (config: Config) =>
        new PolicyEvaluator({
          budgetMs: config.policyBudgetMs,
          threads: config.policyThreads,
          nice: config.tenantPrograms.programNice,
          heapMb: config.evaluationBudgets.policyHeapMb,
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
