import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  JobHandler,
  JobInfo,
  JobOptions,
  Jobs,
  WorkOptions,
  backoffDelay,
} from './jobs.port';

interface Job extends JobInfo {
  attempts: number;
  backoffMs: number;
  jitter: number;
}

interface Queue {
  jobs: Map<string, Job>;
  ready: string[];
  handler?: JobHandler;
  onDeadLetter?: WorkOptions['onDeadLetter'];
  concurrency: number;
  active: number;
}

/** The embedded job runner: same semantics as the BullMQ adapter, in this process. */
export class InProcessJobs implements Jobs {
  readonly kind = 'in-process' as const;
  private readonly queues = new Map<string, Queue>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  private queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = { jobs: new Map(), ready: [], concurrency: 1, active: 0 };
      this.queues.set(name, q);
    }
    return q;
  }

  async enqueue(queue: string, name: string, data: unknown, options: JobOptions = {}): Promise<string> {
    const q = this.queue(queue);
    const id = options.jobId ?? randomUUID();
    if (q.jobs.has(id)) return id;
    q.jobs.set(id, {
      id,
      queue,
      name,
      data: structuredClone(data),
      state: 'waiting',
      attemptsMade: 0,
      attempts: options.attempts ?? DEFAULT_ATTEMPTS,
      backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS,
      jitter: options.jitter ?? 0,
    });
    q.ready.push(id);
    this.pump(q);
    return id;
  }

  async work(queue: string, handler: JobHandler, options: WorkOptions = {}): Promise<void> {
    const q = this.queue(queue);
    q.handler = handler;
    q.onDeadLetter = options.onDeadLetter;
    q.concurrency = options.concurrency ?? 1;
    this.pump(q);
  }

  /**
   * Runs a function in the async context this queue was made in: a job runs
   * as the process's own work, never as part of the request that enqueued it
   * (whose context would tag its writes as the request's, see `idempotentAttempts`).
   */
  private readonly detached = AsyncLocalStorage.snapshot();

  private pump(q: Queue): void {
    while (!this.closed && q.handler && q.active < q.concurrency && q.ready.length > 0) {
      const job = q.jobs.get(q.ready.shift()!)!;
      q.active++;
      const handler = q.handler;
      void this.detached(() => this.run(q, job, handler)).finally(() => {
        q.active--;
        this.pump(q);
      });
    }
  }

  private async run(q: Queue, job: Job, handler: JobHandler): Promise<void> {
    job.state = 'active';
    job.attemptsMade++;
    try {
      job.result = await handler({ id: job.id, name: job.name, data: job.data, attempt: job.attemptsMade });
      job.state = 'completed';
    } catch (error) {
      job.failedReason = error instanceof Error ? error.message : String(error);
      if (job.attemptsMade >= job.attempts) {
        job.state = 'failed';
        await q.onDeadLetter?.(publicInfo(job)).catch(() => undefined);
        return;
      }
      job.state = 'delayed';
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          job.state = 'waiting';
          q.ready.push(job.id);
          this.pump(q);
        },
        backoffDelay(job.backoffMs, job.attemptsMade, job.jitter),
      );
      this.timers.add(timer);
    }
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

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

function publicInfo(job: Job): JobInfo {
  const { attempts: _a, backoffMs: _b, jitter: _j, ...info } = job;
  return structuredClone(info);
}
