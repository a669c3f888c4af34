import type { Type } from '@nestjs/common';
import type { JobContext, JobInfo } from '../../../libs/jobs/src';
import { EvaluationConsumer } from '../../api/src/evaluations/evaluation.consumer';

/** A queue consumer: a Nest provider of a feature module, started by the worker role. */
export interface QueueConsumer {
  readonly queue: string;
  readonly concurrency: number;
  handle(job: JobContext): Promise<unknown>;
  /** A job the queue gave up for good (attempts used up, stalled too often): record the failure. */
  deadLetter?(job: JobInfo): Promise<void>;
  /** At start: enqueue again the work the log says is unfinished (an embedded queue forgets it on restart). */
  recover?(): Promise<void>;
}

/** The queues the worker consumes (action notifications will join evaluations). */
export const queueConsumers: Type<QueueConsumer>[] = [EvaluationConsumer];
