import { DynamicModule, Inject, Logger, Module, OnApplicationBootstrap, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { JobContext, Jobs } from '../../../libs/jobs/src';
import { JOBS, Metrics } from '../../../libs/platform/src';
import { QueueConsumer, queueConsumers } from './job-handlers';

const CONSUMERS = Symbol('CONSUMERS');

class WorkerRunner implements OnApplicationBootstrap {
  private readonly logger = new Logger('worker');
  constructor(
    @Inject(JOBS) private readonly jobs: Jobs,
    @Inject(CONSUMERS) private readonly consumers: Type<QueueConsumer>[],
    private readonly moduleRef: ModuleRef,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const queues: string[] = [];
    for (const type of this.consumers) {
      const consumer = this.moduleRef.get(type, { strict: false });
      await this.jobs.work(consumer.queue, (job) => this.timed(consumer, job), {
        concurrency: consumer.concurrency,
        onDeadLetter: consumer.deadLetter?.bind(consumer),
      });
      queues.push(consumer.queue);
    }
    for (const type of this.consumers) {
      const consumer = this.moduleRef.get(type, { strict: false });
      // Not awaited: a store that is down at start must not keep the worker from starting.
      consumer
        .recover?.()
        .catch((error: unknown) =>
          this.logger.error({ err: error }, `recovering ${consumer.queue} failed; retried at the next start`),
        );
    }
    this.logger.log(`consuming ${queues.join(', ') || 'no queues yet'} (${this.jobs.kind})`);
  }

  private async timed(consumer: QueueConsumer, job: JobContext): Promise<unknown> {
    const end = this.metrics.jobDuration.startTimer({ queue: consumer.queue });
    try {
      const result = await consumer.handle(job);
      end({ outcome: 'completed' });
      return result;
    } catch (error) {
      end({ outcome: 'failed' });
      throw error;
    }
  }
}

/** Starts the queue consumers; the feature modules that provide them, and the PlatformModule, sit beside it. */
@Module({})
export class WorkerModule {
  static register(consumers: Type<QueueConsumer>[] = queueConsumers): DynamicModule {
    return {
      module: WorkerModule,
      providers: [{ provide: CONSUMERS, useValue: consumers }, WorkerRunner],
    };
  }
}
