import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { CompiledPolicy, ENTRYPOINT } from './opa-compiler';
import { PolicyError } from './policy-error';
import type { HostMessage, HostReply } from './policy-host';
import type { EvaluationMessage, EvaluationReply } from './wasm-worker';

export interface PolicyResult {
  allow: boolean;
  violations: string[];
}

export interface PolicyEvaluatorOptions {
  /** Wall-clock budget of one evaluation; over it the process is killed (`timeout`). */
  budgetMs: number;
  /** Evaluating processes (default: the machine's parallelism, at most 4). */
  threads?: number;
  /** Policies kept instantiated per thread (default 16). */
  policiesPerThread?: number;
  /** Ceiling on a policy's WebAssembly memory (default 256 MiB). */
  memoryMb?: number;
  /** Nice value of the evaluating processes (default 0: as the service). */
  nice?: number;
  /** Heap of each evaluating process (default 256 MiB): over it the evaluation fails and the process is replaced. */
  heapMb?: number;
}

const DEFAULT_HEAP_MB = 256;
/** How long a new evaluating process may take to boot. */
const PROCESS_START_MS = 30_000;

function readiness(): { ready: Promise<void>; started: () => void } {
  let started = () => {};
  const ready = new Promise<void>((resolve) => (started = resolve));
  return { ready, started };
}

function unref(child: ChildProcess): void {
  child.unref();
  child.channel?.unref();
}

interface Slot {
  /** A process of its own: a policy that exhausts its heap takes that process down, never the service. */
  child: ChildProcess;
  /** The start of what it wrote to stderr (why it died, before V8's stack trace). */
  stderr: string;
  /** Settled once the process (or, after a timeout, its new thread) can take an evaluation. */
  ready: Promise<void>;
  started: () => void;
  /** Hashes of the policies the thread keeps instantiated, least recently used first (as the thread keeps them). */
  warm: Set<string>;
  current?: { seq: number; settle: (reply: EvaluationReply | Error) => void };
}

/**
 * Evaluates compiled policies with opa-wasm on a pool of warm child
 * processes (the pool's "threads"), each with a heap of its own: V8 ends a
 * whole process when one allocation passes its heap limit, and a worker
 * thread's `resourceLimits` do not stop that (a policy's builtin handed a
 * large input, its result decoded), so only a process bounds a policy's
 * memory without risking the service (ADR 0039). A process is killed (and
 * replaced) when an evaluation runs over its budget or its heap, so a policy
 * cannot run forever or take the service down; the WebAssembly module
 * imports neither network nor file system, so a policy cannot reach either.
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

  /** The same, for the input's JSON as UTF-8 bytes (written once by the caller, sent as they are). */
  async evaluateBytes(compiled: CompiledPolicy, input: Uint8Array, data: unknown): Promise<PolicyResult> {
    if (this.closed) throw new PolicyError('service_error', 'the policy evaluator is closed');
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
    slot.child.kill('SIGKILL');
    if (this.closed) return;
    this.release(this.spawn());
  }

  private spawn(): Slot {
    const child = fork(join(__dirname, 'policy-host.js'), [], {
      // Not the parent's flags (a test runner's, say): only the heap budget.
      execArgv: [`--max-old-space-size=${this.heapMb}`],
      env: {
        DES_POLICY_WORKER: JSON.stringify({
          policiesKept: this.policiesKept,
          memoryPages: ((this.options.memoryMb ?? 256) * 1024 * 1024) / 65536,
          nice: this.options.nice ?? 0,
          heapMb: this.heapMb,
        }),
      },
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const slot: Slot = { child, stderr: '', warm: new Set(), ...readiness() };
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => (slot.stderr = (slot.stderr + text).slice(0, 4000)));
    child.on('message', (reply: HostReply) => {
      if ('ready' in reply) return slot.started();
      if (slot.current?.seq === reply.seq) slot.current.settle(reply);
    });
    child.on('error', (error) => slot.current?.settle(error));
    // `close`, not `exit`: by then its stderr (why it died) is read.
    child.on('close', (code, signal) => {
      // The process died (out of memory, say): whatever it ran fails, the slot is replaced.
      if (slot.current) return slot.current.settle(this.died(slot, code, signal));
      // An idle process that died is forgotten, so no evaluation is handed to it.
      this.forget(slot);
    });
    unref(child);
    (child.stderr as unknown as { unref?: () => void }).unref?.();
    this.slots.add(slot);
    return slot;
  }

  private run(
    slot: Slot,
    message: EvaluationMessage,
  ): Promise<Extract<EvaluationReply, { result: unknown }>> {
    const budgetMs = this.options.budgetMs;
    return new Promise((resolve, reject) => {
      // The budget is the policy's: it starts once the process is ready (a fresh one first boots).
      let timer = setTimeout(
        () => settle(new PolicyError('service_error', 'the policy process did not start')),
        PROCESS_START_MS,
      );
      const settle = (reply: EvaluationReply | Error, after?: 'abort') => {
        if (slot.current?.seq !== message.seq) return;
        slot.current = undefined;
        clearTimeout(timer);
        unref(slot.child);
        if (after === 'abort') {
          // Its thread is replaced inside the process, which stays: the next evaluation waits for it.
          Object.assign(slot, readiness());
          slot.warm.clear();
          slot.child.send({ abort: message.seq } satisfies HostMessage);
          this.release(slot);
          return reject(reply);
        }
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
      // Held open while it evaluates (idle, the pool keeps no caller alive).
      slot.child.ref();
      slot.child.channel?.ref();
      void slot.ready.then(() => {
        if (slot.current?.seq !== message.seq) return;
        clearTimeout(timer);
        timer = setTimeout(() => {
          settle(new PolicyError('timeout', `the policy ran over its budget of ${budgetMs} ms`), 'abort');
        }, budgetMs);
        slot.child.send(message satisfies HostMessage);
      });
    });
  }

  private get heapMb(): number {
    return this.options.heapMb ?? DEFAULT_HEAP_MB;
  }

  /** A process's death as its evaluation's failure: the limit it ran over, when it was one. */
  private died(slot: Slot, code: number | null, signal: NodeJS.Signals | null): Error {
    if (/heap out of memory|heap limit/i.test(slot.stderr))
      return new PolicyError('policy_error', `the policy ran over its memory budget of ${this.heapMb} MiB`);
    return new Error(`the policy's process exited (${signal ?? code})`);
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
      slot.child.kill('SIGKILL');
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
