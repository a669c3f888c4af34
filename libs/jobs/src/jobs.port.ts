export interface JobOptions {
  /** Deduplicates: a job id already known is not enqueued again. */
  jobId?: string;
  /** Total attempts including the first (default 3). */
  attempts?: number;
  /** Base delay of the exponential back-off between attempts (default 200 ms). */
  backoffMs?: number;
  /** Share of each back-off delay drawn at random (0–1, default 0): spreads retries of many jobs out. */
  jitter?: number;
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
}

export type JobHandler = (job: JobContext) => Promise<unknown>;

export interface WorkOptions {
  concurrency?: number;
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
  close(): Promise<void>;
}

export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 200;

/** Exponential back-off; with jitter j the delay is drawn from [(1 − j)·d, d], as BullMQ draws it. */
export function backoffDelay(baseMs: number, attemptsMade: number, jitter = 0, random = Math.random): number {
  const delay = baseMs * 2 ** (attemptsMade - 1);
  return jitter > 0 ? Math.floor(delay * (1 - jitter) + random() * delay * jitter) : delay;
}
