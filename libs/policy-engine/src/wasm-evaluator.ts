import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CompiledPolicy, ENTRYPOINT } from './opa-compiler';
import { PolicyError } from './policy-error';
import type { EvaluationMessage, EvaluationReply } from './wasm-worker';

export interface PolicyResult {
  allow: boolean;
  violations: string[];
}

export interface PolicyEvaluatorOptions {
  /** Wall-clock budget of one evaluation; over it the thread is terminated (`timeout`). */
  budgetMs: number;
  /** Worker threads (default: the machine's parallelism, at most 4). */
  threads?: number;
  /** Policies kept instantiated per thread (default 16). */
  policiesPerThread?: number;
  /** Ceiling on a policy's WebAssembly memory (default 256 MiB). */
  memoryMb?: number;
  /** Nice value of the evaluating threads (default 0: as the process). */
  nice?: number;
  /** Heap of each thread (`resourceLimits`, default 256 MiB): over it the evaluation fails and the thread is replaced. */
  heapMb?: number;
}

const DEFAULT_HEAP_MB = 256;

interface Slot {
  worker: Worker;
  /** Hashes of the policies the thread keeps instantiated, least recently used first (as the thread keeps them). */
  warm: Set<string>;
  current?: { seq: number; settle: (reply: EvaluationReply | Error) => void };
}

/**
 * Evaluates compiled policies with opa-wasm on a pool of warm worker threads.
 * A thread is terminated (and replaced on the next call) when an evaluation
 * runs over its budget, so a policy cannot run forever; the WebAssembly
 * module imports neither network nor file system, so a policy cannot reach
 * either.
 */
export class PolicyEvaluator {
  private readonly idle: Slot[] = [];
  private readonly slots = new Set<Slot>();
  private readonly waiting: ((slot: Slot) => void)[] = [];
  private seq = 0;
  private closed = false;

  constructor(private readonly options: PolicyEvaluatorOptions) {}

  private get size(): number {
    return this.options.threads ?? Math.min(4, availableParallelism());
  }

  /** `input` as a value, or as its JSON text when the caller already has it. */
  evaluate(compiled: CompiledPolicy, input: unknown, data: unknown): Promise<PolicyResult> {
    return this.evaluateJson(compiled, JSON.stringify(input), data);
  }

  /** The same, for a caller that already holds the input as JSON text. */
  evaluateJson(compiled: CompiledPolicy, inputJson: string, data: unknown): Promise<PolicyResult> {
    return this.evaluateBytes(compiled, new TextEncoder().encode(inputJson), data);
  }

  /**
   * The same, for the input's JSON as UTF-8 bytes: their buffer is moved to
   * the evaluating thread, not copied (the caller's view of it is emptied),
   * so a large input is held once.
   */
  async evaluateBytes(compiled: CompiledPolicy, inputJson: Uint8Array, data: unknown): Promise<PolicyResult> {
    if (this.closed) throw new PolicyError('service_error', 'the policy evaluator is closed');
    const whole = inputJson.byteOffset === 0 && inputJson.byteLength === inputJson.buffer.byteLength;
    const input = (whole ? inputJson : inputJson.slice()).buffer as ArrayBuffer;
    const message: EvaluationMessage = {
      seq: ++this.seq,
      hash: compiled.hash,
      wasm: compiled.wasm,
      entrypoint: ENTRYPOINT,
      input,
      data,
    };
    const slot = await this.acquire(compiled.hash);
    const reply = await this.run(slot, message);
    return normalise(reply.result);
  }

  /**
   * An idle thread that keeps this policy; else the idle thread that keeps
   * the fewest (a fresh one keeps none). So a policy that runs over its
   * budget, whose thread is then terminated, lands on a fresh thread rather
   * than on one warm with other tenants' policies.
   */
  private acquire(hash: string): Promise<Slot> {
    let best = -1;
    for (let i = 0; i < this.idle.length; i++) {
      if (this.idle[i].warm.has(hash)) {
        best = i;
        break;
      }
      if (best < 0 || this.idle[i].warm.size < this.idle[best].warm.size) best = i;
    }
    if (best >= 0 && (this.idle[best].warm.has(hash) || this.slots.size >= this.size)) {
      return Promise.resolve(this.idle.splice(best, 1)[0]);
    }
    if (this.slots.size < this.size) return Promise.resolve(this.spawn());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private warmed(slot: Slot, hash: string): void {
    slot.warm.delete(hash);
    slot.warm.add(hash);
    if (slot.warm.size > this.policiesKept) slot.warm.delete(slot.warm.values().next().value!);
  }

  private get policiesKept(): number {
    return this.options.policiesPerThread ?? 16;
  }

  private release(slot: Slot): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.idle.push(slot);
  }

  private forget(slot: Slot): void {
    this.slots.delete(slot);
    const idle = this.idle.indexOf(slot);
    if (idle >= 0) this.idle.splice(idle, 1);
  }

  /**
   * A slot whose thread was terminated is replaced at once (its start off the
   * next evaluation's path), for whoever waits next or as an idle thread.
   */
  private discard(slot: Slot): void {
    this.forget(slot);
    void slot.worker.terminate();
    if (this.closed) return;
    this.release(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(join(__dirname, 'wasm-worker.js'), {
      workerData: {
        policiesKept: this.policiesKept,
        memoryPages: ((this.options.memoryMb ?? 256) * 1024 * 1024) / 65536,
        nice: this.options.nice ?? 0,
      },
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
    });
    const slot: Slot = { worker, warm: new Set() };
    worker.on('message', (reply: EvaluationReply) => {
      if (slot.current?.seq === reply.seq) slot.current.settle(reply);
    });
    // The thread died (out of memory, say): whatever it ran fails, the slot is replaced.
    worker.on('error', (error) => slot.current?.settle(this.died(error)));
    worker.on('exit', (code) => {
      if (slot.current) return slot.current.settle(new Error(`the policy's thread exited (${code})`));
      // An idle thread that died is forgotten, so no evaluation is handed to it.
      this.forget(slot);
    });
    worker.unref();
    this.slots.add(slot);
    return slot;
  }

  private run(
    slot: Slot,
    message: EvaluationMessage,
  ): Promise<Extract<EvaluationReply, { result: unknown }>> {
    const budgetMs = this.options.budgetMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        settle(new PolicyError('timeout', `the policy ran over its budget of ${budgetMs} ms`));
      }, budgetMs);
      const settle = (reply: EvaluationReply | Error) => {
        if (slot.current?.seq !== message.seq) return;
        slot.current = undefined;
        clearTimeout(timer);
        if (reply instanceof Error) {
          this.discard(slot);
          return reject(
            reply instanceof PolicyError ? reply : new PolicyError('policy_error', reply.message),
          );
        }
        this.release(slot);
        if ('error' in reply) return reject(new PolicyError('policy_error', this.explain(reply.error)));
        resolve(reply);
      };
      slot.current = { seq: message.seq, settle };
      this.warmed(slot, message.hash);
      slot.worker.postMessage(message, [message.input]);
    });
  }

  private get heapMb(): number {
    return this.options.heapMb ?? DEFAULT_HEAP_MB;
  }

  /** A thread's death as its evaluation's failure: the limit it ran over, when it was one. */
  private died(error: Error): Error {
    if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
      return new PolicyError('policy_error', `the policy ran over its memory budget of ${this.heapMb} MiB`);
    return error;
  }

  private explain(error: string): string {
    if (/opa_malloc: failed|out of memory/i.test(error))
      return `the policy ran out of memory (its ceiling is ${this.options.memoryMb ?? 256} MiB): ${error}`;
    return error;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) {
      slot.current?.settle(new PolicyError('service_error', 'the policy evaluator was closed'));
      void slot.worker.terminate();
    }
    this.slots.clear();
    this.idle.length = 0;
  }
}

/** The policy contract: a boolean `allow`, an optional set of strings `violations`. */
function normalise(result: unknown): PolicyResult {
  const { allow: allows, violations: found } = result as { allow: unknown[]; violations: unknown[] };
  const allow = allows[0];
  if (allow === undefined) {
    throw new PolicyError(
      'policy_error',
      '`allow` is undefined for this input (give it a default: `default allow := false`)',
    );
  }
  if (typeof allow !== 'boolean')
    throw new PolicyError('policy_error', `\`allow\` must be a boolean, not ${JSON.stringify(allow)}`);
  const violations = found[0] ?? [];
  if (!Array.isArray(violations) || !violations.every((v) => typeof v === 'string')) {
    throw new PolicyError('policy_error', '`violations` must be a set of strings');
  }
  return { allow, violations: [...new Set(violations as string[])].sort() };
}
