export interface JobOptions {
  /** Deduplicates: a job id already known is not enqueued again. */
  jobId?: string;
  /** Total attempts including the first (default 3). */
  attempts?: number;
  /** Base delay of the exponential back-off between attempts (default 200 ms). */
  backoffMs?: number;
  /** Share of each back-off delay drawn at random (0–1, default 0): spreads retries of many jobs out. */
  jitter?: number;
  /**
   * The group the job is scheduled fairly in (the organization): groups take
   * turns, and each runs at most its cap at once (`WorkOptions.groupConcurrency`).
   */
  group?: string;
}

export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed';

export interface JobInfo {
  id: string;
  queue: string;
  name: string;
  data: unknown;
  state: JobState;
  attemptsMade: number;
  result?: unknown;
  failedReason?: string;
}

export interface JobContext {
  id: string;
  name: string;
  data: unknown;
  /** 1 on the first run. */
  attempt: number;
  /** When the job was enqueued (epoch ms); its retries and deferrals keep it. */
  enqueuedAt: number;
  /** The group it was enqueued in (`JobOptions.group`), if any. */
  group?: string;
}

export type JobHandler = (job: JobContext) => Promise<unknown>;

export interface WorkOptions {
  /** Jobs of the queue running at once in this process, all groups together. */
  concurrency?: number;
  /**
   * A group's cap: its jobs running at once in this process (0: only the
   * queue's concurrency). Read again every few seconds; absent: no caps.
   */
  groupConcurrency?: (group: string) => number | Promise<number>;
  /**
   * Called once a job is given up for good (attempts used up, or, on BullMQ,
   * stalled more often than allowed), so the feature can record the failure.
   * Several workers may report the same job: the callee must be idempotent.
   */
  onDeadLetter?: (job: JobInfo) => Promise<void>;
}

/** Background jobs. Adapters: in-process (embedded) and BullMQ on Redis. */
export interface Jobs {
  readonly kind: 'in-process' | 'bullmq';
  enqueue(queue: string, name: string, data: unknown, options?: JobOptions): Promise<string>;
  /** Starts consuming a queue; failed attempts are retried with back-off, then dead-lettered. */
  work(queue: string, handler: JobHandler, options?: WorkOptions): Promise<void>;
  get(queue: string, id: string): Promise<JobInfo | undefined>;
  /** The dead-letter set: jobs that used up their attempts. */
  failed(queue: string): Promise<JobInfo[]>;
  ping(): Promise<void>;
  /** Jobs by state (waiting, delayed, active, failed) in each queue this process has used, for the metrics. */
  depth(): Promise<{ queue: string; state: QueueState; count: number }[]>;
  close(): Promise<void>;
}

export type QueueState = 'waiting' | 'delayed' | 'active' | 'failed';
export const QUEUE_STATES: QueueState[] = ['waiting', 'delayed', 'active', 'failed'];

/**
 * Thrown by a handler: this attempt failed (it counts), and the next one,
 * if any is left, starts at `at` (epoch ms) instead of after the back-off.
 */
export class RetryAt extends Error {
  override readonly name = 'RetryAt';
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Thrown by a handler: nothing was tried, so this run is not an attempt; the
 * job runs again at `at` (epoch ms) with the same attempt number.
 */
export class DeferTo extends Error {
  override readonly name = 'DeferTo';
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

/** The group of jobs enqueued without one. */
export const DEFAULT_GROUP = '';

export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 200;

/** Exponential back-off; with jitter j the delay is drawn from [(1 − j)·d, d], as BullMQ draws it. */
export function backoffDelay(baseMs: number, attemptsMade: number, jitter = 0, random = Math.random): number {
  const delay = baseMs * 2 ** (attemptsMade - 1);
  return jitter > 0 ? Math.floor(delay * (1 - jitter) + random() * delay * jitter) : delay;
}
