import { DelayedError, Job, type MinimalJob, Queue, Worker } from 'bullmq';
import IORedis, { type RedisOptions } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { StoreUnavailableError } from '#des/event-store';
import { FairScheduler } from './fair-scheduler';
import { GroupCaps } from './group-caps';
import {
  backoffDelay,
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  DEFAULT_GROUP,
  JobHandler,
  JobInfo,
  JobOptions,
  Jobs,
  QUEUE_STATES,
  type QueueState,
  DeferTo,
  RetryAt,
  WorkOptions,
} from './jobs.port';

/** The stored job data: the caller's data and its group (jobs stored before groups have the data alone). */
const GROUP = 'des:group';
interface Grouped {
  [GROUP]: string;
  data: unknown;
}
const isGrouped = (stored: unknown): stored is Grouped =>
  typeof stored === 'object' && stored !== null && GROUP in stored && 'data' in stored;
const groupOf = (job: Job) => (isGrouped(job.data) ? job.data[GROUP] : DEFAULT_GROUP);
const dataOf = (job: Job) => (isGrouped(job.data) ? job.data.data : job.data);

/** Exponential back-off with jitter, or the time a `RetryAt` names (BullMQ's built-in strategies take no error). */
const BACKOFF = 'des-exponential';
/** BullMQ's highest priority number (the lowest priority). */
const PRIORITY_LIMIT = 2 ** 21 - 1;
/** A group's pending set is forgotten this long after its last enqueue. */
const PENDING_TTL_MS = 7 * 24 * 3600_000;

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
  /** First delay of a job sent back to Redis because its group is at its cap here (default 100; doubles, up to 50×). */
  deferMs?: number;
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
  private readonly gates: GroupGate[] = [];
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
    const group = options.group ?? DEFAULT_GROUP;
    // BullMQ waits for a connection forever; a request must fail within the timeout instead.
    await this.bounded(async () => {
      await this.connected();
      const priority = await this.fairPriority(queue, group, jobId);
      try {
        await this.queue(queue).add(name, { [GROUP]: group, data } satisfies Grouped, {
          jobId,
          priority,
          attempts: options.attempts ?? DEFAULT_ATTEMPTS,
          backoff: {
            type: BACKOFF,
            delay: options.backoffMs ?? DEFAULT_BACKOFF_MS,
            ...(options.jitter ? { jitter: options.jitter } : {}),
          },
          removeOnComplete: { age: 24 * 3600, count: 10_000 },
          removeOnFail: false,
        });
      } catch (error) {
        await this.producer.srem(this.pendingKey(queue, group), jobId).catch(() => undefined);
        throw error;
      }
    });
    return jobId;
  }

  /**
   * Fair order across groups in one Redis queue: a job's priority is its rank
   * among its group's pending jobs (1 + those before it), so the k-th pending
   * job of every group comes before the (k+1)-th of any: groups take turns.
   * The pending set is a set of job ids, so a repeated enqueue counts once;
   * an id leaves it when its job ends (completed, or given up).
   */
  private async fairPriority(queue: string, group: string, jobId: string): Promise<number> {
    // A job id already known is not enqueued again (BullMQ keeps the job as it is).
    if (await this.producer.exists(`${this.prefix}:${queue}:${jobId}`)) return 1;
    const key = this.pendingKey(queue, group);
    const replies = await this.producer
      .multi()
      .sadd(key, jobId)
      .scard(key)
      .pexpire(key, PENDING_TTL_MS)
      .exec();
    const rank = Number(replies?.[1]?.[1] ?? 1);
    return Math.min(Math.max(1, rank), PRIORITY_LIMIT);
  }

  private get prefix(): string {
    return this.options.prefix ?? 'bull';
  }

  private pendingKey(queue: string, group: string): string {
    return `${this.prefix}:des-fair:${queue}:pending:${group}`;
  }

  private ended(queue: string, job: Job): void {
    this.producer.srem(this.pendingKey(queue, groupOf(job)), job.id!).catch(() => undefined);
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
    const concurrency = options.concurrency ?? 1;
    const gate = new GroupGate(concurrency, new GroupCaps(options.groupConcurrency, 0), this.options.deferMs);
    this.gates.push(gate);
    const worker = new Worker(
      queue,
      async (job: Job, token?: string) => {
        const group = groupOf(job);
        const admitted = await gate.admit(group, job);
        if (admitted !== 'run') {
          await job.moveToDelayed(Date.now() + admitted.deferMs, token);
          throw new DelayedError();
        }
        try {
          const result = await handler({
            id: job.id!,
            name: job.name,
            data: dataOf(job),
            attempt: job.attemptsMade + 1,
            enqueuedAt: job.timestamp,
            group: group === DEFAULT_GROUP ? undefined : group,
          });
          this.ended(queue, job);
          return result;
        } catch (error) {
          if (!(error instanceof DeferTo)) throw error;
          // Back to Redis until then, not failed: BullMQ counts no attempt.
          await job.moveToDelayed(Math.max(error.at, Date.now()), token);
          throw new DelayedError();
        } finally {
          gate.release(group);
        }
      },
      {
        connection,
        prefix: this.options.prefix,
        // Room for the jobs held here while their group is at its cap, besides those running.
        concurrency: concurrency * 2,
        lockDuration: this.options.lockMs ?? 30_000,
        stalledInterval: this.options.lockMs ?? 30_000,
        maxStalledCount: 2,
        // After a Redis outage, fetch again within a second (BullMQ's default waits 15 s, even past close()).
        runRetryDelay: 1000,
        settings: { backoffStrategy: retryDelay },
      },
    );
    worker.on('error', (error) => this.options.onError?.(error));
    // 'failed' fires after every failed attempt; only a job left in the failed set is given up
    // (attempts used up, or a deferred failure after stalling more than maxStalledCount).
    const onDeadLetter = options.onDeadLetter;
    worker.on('failed', (job) => {
      if (!job) return;
      void job
        .getState()
        .then((state) => {
          if (state !== 'failed') return;
          this.ended(queue, job);
          return onDeadLetter?.(toInfo(queue, job, 'failed'));
        })
        .catch((error: unknown) =>
          this.options.onError?.(error instanceof Error ? error : new Error(String(error))),
        );
    });
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

  async depth(): Promise<{ queue: string; state: QueueState; count: number }[]> {
    const answer: { queue: string; state: QueueState; count: number }[] = [];
    for (const [name, queue] of this.queues) {
      const c = await this.bounded(() =>
        queue.getJobCounts('wait', 'prioritized', 'delayed', 'active', 'failed'),
      );
      const counts: Record<QueueState, number> = {
        waiting: (c.wait ?? 0) + (c.prioritized ?? 0),
        delayed: c.delayed ?? 0,
        active: c.active ?? 0,
        failed: c.failed ?? 0,
      };
      for (const state of QUEUE_STATES) answer.push({ queue: name, state, count: counts[state] });
    }
    return answer;
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
    // Jobs held for their turn go back to Redis first: close() waits for every job this worker took.
    for (const gate of this.gates) gate.close();
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
    data: dataOf(job),
    state: (['waiting', 'delayed', 'active', 'completed', 'failed'].includes(state)
      ? state
      : 'waiting') as JobInfo['state'],
    attemptsMade: job.attemptsMade,
    result: job.returnvalue ?? undefined,
    failedReason: job.failedReason || undefined,
  };
}

/** The wait before a retry: until the time a `RetryAt` names, else exponential back-off with jitter. */
function retryDelay(attemptsMade: number, _type?: string, error?: Error, job?: MinimalJob): number {
  if (error instanceof RetryAt) return Math.max(0, error.at - Date.now());
  const backoff = typeof job?.opts.backoff === 'object' ? job.opts.backoff : undefined;
  return backoffDelay(backoff?.delay ?? DEFAULT_BACKOFF_MS, attemptsMade, backoff?.jitter ?? 0);
}

type Admission = 'run' | { deferMs: number };

/**
 * A worker's fair gate: at most `total` jobs run, each group at most its cap;
 * a job whose group is at its cap waits here for its turn (round-robin over
 * groups) while there is room, else goes back to Redis for a while (longer
 * each time it comes back too early), never holding a slot another group needs.
 */
class GroupGate {
  private readonly turns: FairScheduler<(run: boolean) => void>;
  private closed = false;

  constructor(
    private readonly total: number,
    private readonly caps: GroupCaps,
    private readonly deferMs = 100,
  ) {
    this.turns = new FairScheduler(total, (group) => caps.peek(group));
  }

  async admit(group: string, job: Job): Promise<Admission> {
    const cap = this.caps.peek(group) ?? (await this.caps.load(group));
    if (this.closed) return { deferMs: 0 };
    if (this.turns.tryStart(group)) return 'run';
    const room = cap > 0 ? Math.min(cap, this.total) : this.total;
    if (this.turns.size.waiting < this.total && this.turns.waitingIn(group) < room) {
      const run = await new Promise<boolean>((resolve) => this.turns.push(group, resolve));
      return run ? 'run' : { deferMs: 0 };
    }
    // Taken out of turn before: jobs started and neither finished nor failed (BullMQ counts both).
    const deferrals = Math.max(0, job.attemptsStarted - job.attemptsMade - 1);
    return { deferMs: Math.min(this.deferMs * 2 ** Math.min(deferrals, 10), this.deferMs * 50) };
  }

  release(group: string): void {
    this.turns.finish(group);
    for (let next = this.turns.next(); next; next = this.turns.next()) next.item(true);
  }

  close(): void {
    this.closed = true;
    for (const resolve of this.turns.drain()) resolve(false);
  }
}
