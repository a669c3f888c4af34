import type { Type } from '@nestjs/common';
import type { JobContext } from '../../../libs/jobs/src';
import { EvaluationConsumer } from '../../api/src/evaluations/evaluation.consumer';

/** A queue consumer: a Nest provider of a feature module, started by the worker role. */
export interface QueueConsumer {
  readonly queue: string;
  readonly concurrency: number;
  handle(job: JobContext): Promise<unknown>;
}

/** The queues the worker consumes (action notifications will join evaluations). */
export const queueConsumers: Type<QueueConsumer>[] = [EvaluationConsumer];
