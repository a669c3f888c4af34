import type { JobHandler } from '../../../libs/jobs/src';

export interface QueueConsumer {
  queue: string;
  concurrency: number;
  handler: JobHandler;
}

/**
 * The queues the worker consumes. Features register theirs here
 * (evaluations, action notifications).
 */
export const queueConsumers: QueueConsumer[] = [];
