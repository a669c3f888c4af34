import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { checkYamlText, YAML_LIMITS, type YamlLimits, YamlRefusal } from './bounded-yaml';
import type { YamlParseReply, YamlParseTask } from './yaml-parse-worker';
import { tenantProgramsConfig } from './tenant-programs';

export interface YamlParsingOptions {
  /** Threads parsing tenants' documents. */
  threads: number;
  /** Wall-clock budget of one parse, from when a thread takes it. */
  budgetMs: number;
  /** Ceiling on a thread's JavaScript heap, in MiB. */
  heapMb: number;
  /** Nice value of the threads (0: as the process). */
  nice: number;
}

/** Heap a thread may keep between parses: past it, the thread is replaced so its memory goes back. */
const RESTING_MB = 24;

interface Job {
  task: YamlParseTask;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current?: { seq: number; settle: (reply: YamlParseReply | Error) => void };
}

/**
 * Parses tenants' YAML documents on a pool of worker threads, each parse
 * within a time budget (over it, the thread is terminated and replaced) and a
 * heap ceiling (`resourceLimits`: past it, the thread dies and is replaced).
 * Either fails that document alone with a 400 naming the budget; the event
 * loop never runs the parser on a tenant's text, and a parse that overflows
 * its stack retires its thread (ADR 0038). Waiting parses are taken in order.
 */
export class YamlParsing {
  private readonly idle: Slot[] = [];
  private readonly slots = new Set<Slot>();
  private readonly waiting: Job[] = [];
  private seq = 0;
  private closed = false;

  constructor(private readonly options: YamlParsingOptions) {}

  /** The document's value; YamlRefusal when its text, its parse or the parse's budgets refuse it. */
  parse(source: string | Buffer, limits: YamlLimits = YAML_LIMITS): Promise<unknown> {
    let text: string;
    try {
      text = checkYamlText(source, limits);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    if (this.closed) return Promise.reject(unavailable());
    return new Promise((resolve, reject) => {
      this.waiting.push({ task: { seq: ++this.seq, text, limits }, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.waiting.length && !this.closed) {
      const slot = this.idle.pop();
      if (!slot) {
        if (this.slots.size < this.options.threads) this.spawn();
        return;
      }
      this.start(slot, this.waiting.shift()!);
    }
  }

  private start(slot: Slot, job: Job): void {
    const { seq } = job.task;
    const { budgetMs, heapMb } = this.options;
    const timer = setTimeout(
      () =>
        settle(
          new YamlRefusal(
            'limit',
            400,
            `took more than the ${budgetMs} ms a YAML document may take to parse`,
          ),
        ),
      budgetMs,
    );
    const settle = (reply: YamlParseReply | Error) => {
      if (slot.current?.seq !== seq) return;
      slot.current = undefined;
      clearTimeout(timer);
      if (reply instanceof Error || reply.retire) this.retire(slot);
      else this.rest(slot);
      if (reply instanceof YamlRefusal) job.reject(reply);
      else if (reply instanceof Error)
        job.reject(
          (reply as Error & { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new YamlRefusal(
                'limit',
                400,
                `needed more than the ${heapMb} MiB a YAML document may take to parse`,
              )
            : unavailable(),
        );
      else if ('value' in reply) job.resolve(reply.value);
      else if ('refusal' in reply)
        job.reject(new YamlRefusal(reply.refusal.kind, 400, reply.refusal.message));
      else job.reject(unavailable());
      this.dispatch();
    };
    slot.current = { seq, settle };
    slot.worker.ref();
    slot.worker.postMessage(job.task);
  }

  private spawn(): void {
    const worker = new Worker(join(__dirname, 'yaml-parse-worker.js'), {
      workerData: { nice: this.options.nice, restingBytes: RESTING_MB * 1024 * 1024 },
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb, maxYoungGenerationSizeMb: 8 },
    });
    const slot: Slot = { worker, ready: false };
    worker.on('message', (reply: YamlParseReply | { ready: true }) => {
      if ('ready' in reply) {
        slot.ready = true;
        this.rest(slot);
        return this.dispatch();
      }
      if (slot.current?.seq === reply.seq) slot.current.settle(reply);
    });
    worker.on('error', (error) => slot.current?.settle(error));
    worker.on('exit', () => {
      if (slot.current) return slot.current.settle(unavailable());
      this.forget(slot);
      // A thread that cannot start fails the oldest waiting parse, so a broken setup cannot spin.
      if (!slot.ready && this.waiting.length) {
        this.waiting.shift()!.reject(unavailable());
        this.dispatch();
      }
    });
    this.slots.add(slot);
  }

  /** An idle thread does not keep the process alive; a starting or busy one does. */
  private rest(slot: Slot): void {
    slot.worker.unref();
    this.idle.push(slot);
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
    for (const job of this.waiting.splice(0)) job.reject(unavailable());
    const stopping = [...this.slots].map((slot) => {
      slot.current?.settle(unavailable());
      return slot.worker.terminate();
    });
    this.slots.clear();
    this.idle.length = 0;
    await Promise.all(stopping);
  }
}

function unavailable(): YamlRefusal {
  return new YamlRefusal('limit', 503, 'could not be parsed now (the YAML threads are unavailable); retry');
}

let shared: YamlParsing | undefined;

/**
 * A tenant's YAML document (a policy or a flow template being uploaded),
 * measured here and parsed on the process's YAML threads, configured from
 * the environment (`DES_YAML_*`) when first used. Throws YamlRefusal.
 */
export function parseTenantYaml(source: string | Buffer, limits: YamlLimits = YAML_LIMITS): Promise<unknown> {
  if (!shared) {
    const config = tenantProgramsConfig(process.env);
    shared = new YamlParsing({
      threads: config.yamlThreads,
      budgetMs: config.yamlBudgetMs,
      heapMb: config.yamlHeapMb,
      nice: config.programNice,
    });
  }
  return shared.parse(source, limits);
}
