import { Job, Queue, Worker } from 'bullmq';
import IORedis, { type RedisOptions } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { StoreUnavailableError } from '#des/event-store';
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  JobHandler,
  JobInfo,
  JobOptions,
  Jobs,
  WorkOptions,
} from './jobs.port';

export interface BullMqJobsOptions {
  url: string;
  /** Key prefix, so several deployments (or test runs) can share one Redis. */
  prefix?: string;
  /**
   * A job's lock: renewed by a live worker at half this interval; a job whose
   * worker died is taken up again once it lapses (default 30000).
   */
  lockMs?: number;
  /** How long an enqueue may wait for an unreachable Redis before it fails (default 3000). */
  timeoutMs?: number;
  /** Told of errors BullMQ reports in the background (lost connections, say). */
  onError?: (error: Error) => void;
}

/** Jobs on Redis with BullMQ: retries with exponential back-off, failed set as dead letter. */
export class BullMqJobs implements Jobs {
  readonly kind = 'bullmq' as const;
  private readonly producer: IORedis;
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  private readonly workerConnections: IORedis[] = [];
  private closed = false;

  constructor(private readonly options: BullMqJobsOptions) {
    // Producers fail fast when Redis is down (answered 503) instead of queueing offline.
    this.producer = new IORedis(options.url, { ...redisOptions(), enableOfflineQueue: false });
    this.producer.on('error', () => undefined);
  }

  private queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.producer, prefix: this.options.prefix });
      q.on('error', () => undefined);
      this.queues.set(name, q);
    }
    return q;
  }

  async enqueue(queue: string, name: string, data: unknown, options: JobOptions = {}): Promise<string> {
    const jobId = options.jobId ?? randomUUID();
    // BullMQ waits for a connection forever; a request must fail within the timeout instead.
    await this.bounded(async () => {
      await this.connected();
      await this.queue(queue).add(name, data, {
        jobId,
        attempts: options.attempts ?? DEFAULT_ATTEMPTS,
        backoff: {
          type: 'exponential',
          delay: options.backoffMs ?? DEFAULT_BACKOFF_MS,
          ...(options.jitter ? { jitter: options.jitter } : {}),
        },
        removeOnComplete: { age: 24 * 3600, count: 10_000 },
        removeOnFail: false,
      });
    });
    return jobId;
  }

  private async connected(): Promise<void> {
    if (this.producer.status === 'ready') return;
    if (this.producer.status !== 'connecting' && this.producer.status !== 'connect')
      throw new Error(`Redis connection is ${this.producer.status}`);
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        this.producer.off('ready', settle).off('error', settle);
        if (error) reject(error);
        else resolve();
      };
      this.producer.once('ready', settle).once('error', settle);
    });
  }

  private async bounded<T>(work: () => Promise<T>): Promise<T> {
    const timeoutMs = this.options.timeoutMs ?? 3000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([work(), timeout]);
    } catch (error) {
      throw new StoreUnavailableError('Redis', error);
    } finally {
      clearTimeout(timer);
    }
  }

  async work(queue: string, handler: JobHandler, options: WorkOptions = {}): Promise<void> {
    const connection = new IORedis(this.options.url, redisOptions());
    connection.on('error', () => undefined);
    this.workerConnections.push(connection);
    // The BullMQ worker is made once its connection is ready: a worker closed while its first
    // connection is still failing leaks that failure as an unhandled rejection (BullMQ 5).
    // Until then nothing consumes, so a worker started while Redis is down begins once it is back.
    const start = () => {
      if (!this.closed) this.startWorker(queue, handler, options, connection);
    };
    if (connection.status === 'ready') start();
    else connection.once('ready', start);
  }

  private startWorker(queue: string, handler: JobHandler, options: WorkOptions, connection: IORedis): void {
    const worker = new Worker(
      queue,
      (job: Job) => handler({ id: job.id!, name: job.name, data: job.data, attempt: job.attemptsMade + 1 }),
      {
        connection,
        prefix: this.options.prefix,
        concurrency: options.concurrency ?? 1,
        lockDuration: this.options.lockMs ?? 30_000,
        stalledInterval: this.options.lockMs ?? 30_000,
        maxStalledCount: 2,
        // After a Redis outage, fetch again within a second (BullMQ's default waits 15 s, even past close()).
        runRetryDelay: 1000,
      },
    );
    worker.on('error', (error) => this.options.onError?.(error));
    // 'failed' fires after every failed attempt; only a job left in the failed set is given up
    // (attempts used up, or a deferred failure after stalling more than maxStalledCount).
    const onDeadLetter = options.onDeadLetter;
    if (onDeadLetter) {
      worker.on('failed', (job) => {
        if (!job) return;
        void job
          .getState()
          .then((state) => (state === 'failed' ? onDeadLetter(toInfo(queue, job, 'failed')) : undefined))
          .catch((error: unknown) =>
            this.options.onError?.(error instanceof Error ? error : new Error(String(error))),
          );
      });
    }
    this.workers.push(worker);
    worker.waitUntilReady().catch(() => undefined);
  }

  async get(queue: string, id: string): Promise<JobInfo | undefined> {
    // State first: a job read after its state is at least as new as that state.
    const state = await this.queue(queue).getJobState(id);
    const job = await this.queue(queue).getJob(id);
    return job ? toInfo(queue, job, state) : undefined;
  }

  async failed(queue: string): Promise<JobInfo[]> {
    const jobs = await this.queue(queue).getFailed();
    return jobs.map((job) => toInfo(queue, job, 'failed'));
  }

  async ping(): Promise<void> {
    // A connection still being made is waited for (within the timeout): with the offline
    // queue off, a ping sent before it is ready would fail although Redis is up.
    await this.bounded(async () => {
      await this.connected();
      await this.producer.ping();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    for (const c of this.workerConnections) c.disconnect();
    this.producer.disconnect();
  }
}

function redisOptions(): RedisOptions {
  return {
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
}

function toInfo(queue: string, job: Job, state: string): JobInfo {
  return {
    id: job.id!,
    queue,
    name: job.name,
    data: job.data,
    state: (['waiting', 'delayed', 'active', 'completed', 'failed'].includes(state)
      ? state
      : 'waiting') as JobInfo['state'],
    attemptsMade: job.attemptsMade,
    result: job.returnvalue ?? undefined,
    failedReason: job.failedReason || undefined,
  };
}
