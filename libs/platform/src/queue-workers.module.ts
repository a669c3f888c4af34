import { DynamicModule, Inject, Logger, Module, OnApplicationBootstrap, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { JobContext, JobInfo, Jobs } from '#des/jobs';
import { inReadScope } from '#des/read-store';
import { Metrics } from './metrics';
import { JOBS } from './tokens';

/** A queue consumer: a Nest provider of a feature module, started by the worker role. */
export interface QueueConsumer {
  readonly queue: string;
  readonly concurrency: number;
  /** A group's (an organization's) cap under `concurrency`; jobs are grouped by `JobOptions.group`. */
  groupConcurrency?(group: string): Promise<number>;
  handle(job: JobContext): Promise<unknown>;
  /** A job the queue gave up for good (attempts used up, stalled too often): record the failure. */
  deadLetter?(job: JobInfo): Promise<void>;
  /** At start: enqueue again the work the log says is unfinished (an embedded queue forgets it on restart). */
  recover?(): Promise<void>;
}

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
      // A job's reads wait their organization's turn at the read-model server, as its requests' do.
      await this.jobs.work(consumer.queue, (job) => inReadScope(() => this.timed(consumer, job), job.group), {
        concurrency: consumer.concurrency,
        groupConcurrency: consumer.groupConcurrency?.bind(consumer),
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
    if (job.enqueuedAt)
      this.metrics.jobWait.observe(
        { queue: consumer.queue },
        Math.max(0, Date.now() - job.enqueuedAt) / 1000,
      );
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
export class QueueWorkersModule {
  static register(consumers: Type<QueueConsumer>[]): DynamicModule {
    return {
      module: QueueWorkersModule,
      providers: [{ provide: CONSUMERS, useValue: consumers }, WorkerRunner],
    };
  }
}
