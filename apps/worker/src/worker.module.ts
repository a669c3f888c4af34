import { DynamicModule, Inject, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Jobs } from '../../../libs/jobs/src';
import { JOBS } from '../../../libs/platform/src';
import { QueueConsumer, queueConsumers } from './job-handlers';

const CONSUMERS = Symbol('CONSUMERS');

class WorkerRunner implements OnApplicationBootstrap {
  private readonly logger = new Logger('worker');
  constructor(
    @Inject(JOBS) private readonly jobs: Jobs,
    @Inject(CONSUMERS) private readonly consumers: QueueConsumer[],
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const c of this.consumers) await this.jobs.work(c.queue, c.handler, { concurrency: c.concurrency });
    this.logger.log(
      `consuming ${this.consumers.map((c) => c.queue).join(', ') || 'no queues yet'} (${this.jobs.kind})`,
    );
  }
}

/** Starts the queue consumers; needs the (global) PlatformModule beside it. */
@Module({})
export class WorkerModule {
  static register(consumers: QueueConsumer[] = queueConsumers): DynamicModule {
    return {
      module: WorkerModule,
      providers: [{ provide: CONSUMERS, useValue: consumers }, WorkerRunner],
    };
  }
}
