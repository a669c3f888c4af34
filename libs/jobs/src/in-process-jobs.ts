import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { FairScheduler } from './fair-scheduler';
import { GroupCaps } from './group-caps';
import {
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
  backoffDelay,
} from './jobs.port';

interface Job extends JobInfo {
  attempts: number;
  backoffMs: number;
  jitter: number;
  group: string;
  enqueuedAt: number;
}

interface Queue {
  jobs: Map<string, Job>;
  /** Ready jobs, taken in turn per group under each group's cap. */
  ready: FairScheduler<string>;
  caps: GroupCaps;
  handler?: JobHandler;
  onDeadLetter?: WorkOptions['onDeadLetter'];
  /** The next job's start, on the next turn of the event loop. */
  pumpScheduled?: NodeJS.Immediate;
}

/** The embedded job runner: same semantics as the BullMQ adapter, in this process. */
export class InProcessJobs implements Jobs {
  readonly kind = 'in-process' as const;
  private readonly queues = new Map<string, Queue>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Attempts under way: close() lets them finish. */
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  private queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      const queue: Queue = {
        jobs: new Map(),
        caps: new GroupCaps(undefined, 0),
        ready: new FairScheduler(1, (group) => queue.caps.peek(group)),
      };
      this.queues.set(name, queue);
      q = queue;
    }
    return q;
  }

  async enqueue(queue: string, name: string, data: unknown, options: JobOptions = {}): Promise<string> {
    const q = this.queue(queue);
    const id = options.jobId ?? randomUUID();
    if (q.jobs.has(id)) return id;
    const job: Job = {
      id,
      queue,
      name,
      data: structuredClone(data),
      state: 'waiting',
      attemptsMade: 0,
      attempts: options.attempts ?? DEFAULT_ATTEMPTS,
      backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS,
      jitter: options.jitter ?? 0,
      group: options.group ?? DEFAULT_GROUP,
      enqueuedAt: Date.now(),
    };
    q.jobs.set(id, job);
    this.makeReady(q, job);
    return id;
  }

  async work(queue: string, handler: JobHandler, options: WorkOptions = {}): Promise<void> {
    const q = this.queue(queue);
    q.handler = handler;
    q.onDeadLetter = options.onDeadLetter;
    q.ready.total = options.concurrency ?? 1;
    q.caps = new GroupCaps(options.groupConcurrency, 0);
    for (const group of new Set([...q.jobs.values()].map((j) => j.group))) this.loadCap(q, group);
    this.pump(q);
  }

  private makeReady(q: Queue, job: Job): void {
    job.state = 'waiting';
    q.ready.push(job.group, job.id);
    this.loadCap(q, job.group);
    this.pump(q);
  }

  /** A group's cap is read before its first job starts (and kept fresh); the queue moves on once it is known. */
  private loadCap(q: Queue, group: string): void {
    if (q.caps.peek(group) === undefined) void q.caps.load(group).then(() => this.pump(q));
  }

  /**
   * Runs a function in the async context this queue was made in: a job runs
   * as the process's own work, never as part of the request that enqueued it
   * (whose context would tag its writes as the request's, see `idempotentAttempts`).
   */
  private readonly detached = AsyncLocalStorage.snapshot();

  /**
   * Starts the next job the fair scheduler gives, then the one after on the
   * next turn of the event loop: a job runs synchronously up to its first real
   * I/O (its log reads are synchronous SQLite), so a hundred jobs made ready
   * at once started in one turn held the loop for all of them; one per turn
   * lets requests be served in between.
   */
  private pump(q: Queue): void {
    if (q.pumpScheduled || this.closed || !q.handler) return;
    const next = q.ready.next();
    if (!next) return;
    const job = q.jobs.get(next.item)!;
    const handler = q.handler;
    const attempt = this.detached(() => this.run(q, job, handler)).finally(() => {
      this.running.delete(attempt);
      q.ready.finish(next.group);
      this.pump(q);
    });
    this.running.add(attempt);
    q.pumpScheduled = setImmediate(() => {
      q.pumpScheduled = undefined;
      this.pump(q);
    });
  }

  private async run(q: Queue, job: Job, handler: JobHandler): Promise<void> {
    job.state = 'active';
    job.attemptsMade++;
    try {
      job.result = await handler({
        id: job.id,
        name: job.name,
        data: job.data,
        attempt: job.attemptsMade,
        enqueuedAt: job.enqueuedAt,
        group: job.group === DEFAULT_GROUP ? undefined : job.group,
      });
      job.state = 'completed';
    } catch (error) {
      if (error instanceof DeferTo) {
        job.attemptsMade--;
        job.state = 'delayed';
        this.later(q, job, Math.max(0, error.at - Date.now()));
        return;
      }
      job.failedReason = error instanceof Error ? error.message : String(error);
      if (job.attemptsMade >= job.attempts) {
        job.state = 'failed';
        await q.onDeadLetter?.(publicInfo(job)).catch(() => undefined);
        return;
      }
      job.state = 'delayed';
      const delay =
        error instanceof RetryAt
          ? Math.max(0, error.at - Date.now())
          : backoffDelay(job.backoffMs, job.attemptsMade, job.jitter);
      this.later(q, job, delay);
    }
  }

  private later(q: Queue, job: Job, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.makeReady(q, job);
    }, delayMs);
    this.timers.add(timer);
  }

  async get(queue: string, id: string): Promise<JobInfo | undefined> {
    const job = this.queues.get(queue)?.jobs.get(id);
    return job ? publicInfo(job) : undefined;
  }

  async failed(queue: string): Promise<JobInfo[]> {
    return [...(this.queues.get(queue)?.jobs.values() ?? [])]
      .filter((j) => j.state === 'failed')
      .map(publicInfo);
  }

  async ping(): Promise<void> {}

  async depth(): Promise<{ queue: string; state: QueueState; count: number }[]> {
    const answer: { queue: string; state: QueueState; count: number }[] = [];
    for (const [queue, q] of this.queues) {
      const counts = new Map<string, number>();
      for (const job of q.jobs.values()) counts.set(job.state, (counts.get(job.state) ?? 0) + 1);
      for (const state of QUEUE_STATES) answer.push({ queue, state, count: counts.get(state) ?? 0 });
    }
    return answer;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const q of this.queues.values()) if (q.pumpScheduled) clearImmediate(q.pumpScheduled);
    // No new attempt starts once closed; those under way finish (a retry they schedule is not run).
    await Promise.allSettled([...this.running]);
    for (const timer of this.timers) clearTimeout(timer);
  }
}

function publicInfo(job: Job): JobInfo {
  const { attempts: _a, backoffMs: _b, jitter: _j, group: _g, enqueuedAt: _e, ...info } = job;
  return structuredClone(info);
}
