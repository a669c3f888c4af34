import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CustomTask, CustomTaskMessage, CustomTaskReply } from './custom-worker';

export interface CustomTypePoolOptions {
  threads: number;
  /** Ceiling on each thread's WebAssembly (jq) memory. */
  memoryMb: number;
  /** Ceiling on each thread's JavaScript heap (ajv, the data as text). */
  heapMb?: number;
  /** Nice value of the threads (default 0: as the process). */
  nice?: number;
}

/** How a task failed: `timeout` (over its budget), `memory` (over a ceiling), `error` (the program's own). */
export type ProgramErrorKind = 'timeout' | 'memory' | 'error';

export class ProgramError extends Error {
  constructor(
    readonly kind: ProgramErrorKind,
    message: string,
  ) {
    super(message);
  }
}

interface Slot {
  worker: Worker;
  current?: { seq: number; settle: (reply: CustomTaskReply | Error) => void };
}

interface Job {
  message: CustomTaskMessage;
  budgetMs: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** Memory a thread may keep between tasks: past it, the thread is replaced so its memory goes back. */
const RESTING_MB = 32;

/**
 * Runs tenants' jq rules and JSON schemas on a pool of worker threads, each
 * task within a wall-clock budget that starts when a thread takes it: over
 * it, the thread is terminated and replaced, so the event loop never waits
 * on a tenant's program. Waiting tasks are taken round-robin across
 * organizations, so one organization's queue does not delay another's.
 */
export class CustomTypePool {
  private readonly idle: Slot[] = [];
  private readonly slots = new Set<Slot>();
  /** Waiting jobs per organization, in the order organizations are served. */
  private readonly waiting = new Map<string, Job[]>();
  private seq = 0;
  private closed = false;

  constructor(private readonly options: CustomTypePoolOptions) {}

  /** The task's value; ProgramError when it fails, runs over `budgetMs` or over a memory ceiling. */
  run(org: string, task: CustomTask, budgetMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new ProgramError('error', 'the custom type pool is closed'));
    return new Promise((resolve, reject) => {
      const job: Job = { message: { seq: ++this.seq, task }, budgetMs, resolve, reject };
      const queue = this.waiting.get(org) ?? [];
      queue.push(job);
      this.waiting.set(org, queue);
      this.dispatch();
    });
  }

  /** Hands waiting jobs to free threads, one organization after another. */
  private dispatch(): void {
    while (this.waiting.size && !this.closed) {
      const slot = this.idle.pop();
      if (!slot) {
        // A new thread takes work once it has loaded jq (its 'ready'), outside any task's budget.
        if (this.slots.size < this.options.threads) this.spawn();
        return;
      }
      const [org, queue] = this.waiting.entries().next().value!;
      const job = queue.shift()!;
      this.waiting.delete(org);
      if (queue.length) this.waiting.set(org, queue); // to the back of the rotation
      this.start(slot, job);
    }
  }

  private start(slot: Slot, job: Job): void {
    const { seq } = job.message;
    const timer = setTimeout(
      () => settle(new ProgramError('timeout', `ran over its budget of ${job.budgetMs} ms`)),
      job.budgetMs,
    );
    const settle = (reply: CustomTaskReply | Error) => {
      if (slot.current?.seq !== seq) return;
      slot.current = undefined;
      clearTimeout(timer);
      if (reply instanceof Error || reply.retire) this.retire(slot);
      else this.rest(slot);
      if (reply instanceof ProgramError) job.reject(reply);
      else if (reply instanceof Error) job.reject(this.explain(reply));
      else if ('error' in reply) job.reject(this.explain(reply));
      else job.resolve(reply.value);
      this.dispatch();
    };
    slot.current = { seq, settle };
    slot.worker.ref();
    slot.worker.postMessage(job.message);
  }

  private explain(failure: Error | Extract<CustomTaskReply, { error: string }>): ProgramError {
    const memory =
      failure instanceof Error
        ? (failure as Error & { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
        : failure.kind === 'memory';
    if (memory)
      return new ProgramError(
        'memory',
        `ran out of memory (its ceiling is ${this.options.memoryMb} MiB of jq memory, ${this.heapMb} MiB of heap)`,
      );
    return new ProgramError('error', failure instanceof Error ? failure.message : failure.error);
  }

  private get heapMb(): number {
    return this.options.heapMb ?? 128;
  }

  private spawn(): Slot {
    const worker = new Worker(join(__dirname, 'custom-worker.js'), {
      workerData: {
        memoryBytes: this.options.memoryMb * 1024 * 1024,
        restingBytes: RESTING_MB * 1024 * 1024,
        nice: this.options.nice ?? 0,
      },
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: 16 },
    });
    const slot: Slot = { worker };
    let ready = false;
    worker.on('message', (reply: CustomTaskReply | { ready: true }) => {
      if ('ready' in reply) {
        ready = true;
        this.rest(slot);
        return this.dispatch();
      }
      if (slot.current?.seq === reply.seq) slot.current.settle(reply);
    });
    worker.on('error', (error) => slot.current?.settle(error));
    worker.on('exit', (code) => {
      if (slot.current) return slot.current.settle(new Error(`the program's thread exited (${code})`));
      this.forget(slot);
      if (!ready) this.failOldest(new ProgramError('error', `the program's thread did not start (${code})`));
    });
    this.slots.add(slot);
    return slot;
  }

  /** An idle thread does not keep the process alive; a starting or busy one does. */
  private rest(slot: Slot): void {
    slot.worker.unref();
    this.idle.push(slot);
  }

  /** A thread that cannot start fails the oldest waiting task, so a broken setup cannot spin. */
  private failOldest(error: ProgramError): void {
    const next = this.waiting.entries().next().value;
    if (!next) return;
    const [org, queue] = next;
    queue.shift()!.reject(error);
    if (!queue.length) this.waiting.delete(org);
    this.dispatch();
  }

  private forget(slot: Slot): void {
    this.slots.delete(slot);
    const idle = this.idle.indexOf(slot);
    if (idle >= 0) this.idle.splice(idle, 1);
  }

  /** The thread is terminated; the next dispatch starts a fresh one in its place. */
  private retire(slot: Slot): void {
    this.forget(slot);
    void slot.worker.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.waiting.values())
      for (const job of queue) job.reject(new ProgramError('error', 'the custom type pool was closed'));
    this.waiting.clear();
    const stopping = [...this.slots].map((slot) => {
      slot.current?.settle(new ProgramError('error', 'the custom type pool was closed'));
      return slot.worker.terminate();
    });
    this.slots.clear();
    this.idle.length = 0;
    await Promise.all(stopping);
  }
}
