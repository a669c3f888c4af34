import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The thread that evaluates, inside a policy host process (policy-host.ts):
 * compiled policies one at a time, the most recently used kept instantiated,
 * so a warm policy costs only its evaluation. The host terminates the thread
 * when an evaluation runs over its budget.
 */
export interface EvaluationMessage {
  seq: number;
  hash: string;
  wasm: Uint8Array;
  entrypoint: string;
  /** JSON text as UTF-8. */
  input: Uint8Array;
  data: unknown;
}

export type EvaluationReply = { seq: number; result: unknown } | { seq: number; error: string };

type LoadedPolicy = Awaited<ReturnType<typeof loadPolicy>>;

export interface WorkerSettings {
  policiesKept: number;
  memoryPages: number;
  nice: number;
}

const { policiesKept, memoryPages, nice } = workerData as WorkerSettings;
// On Linux a nice value is the thread's own: the tenant's program yields the cores to serving (ADR 0005).
if (nice > 0) {
  try {
    setPriority(nice);
  } catch {
    // Refused on this platform: the budgets still bound the program.
  }
}
const loaded = new Map<string, LoadedPolicy>();

async function policyFor(message: EvaluationMessage): Promise<LoadedPolicy> {
  let policy = loaded.get(message.hash);
  if (policy) {
    loaded.delete(message.hash); // re-inserted below as the most recently used
  } else {
    // A ceiling on the policy's memory: a runaway allocation traps instead of taking the host down.
    policy = await loadPolicy(message.wasm, { initial: 5, maximum: memoryPages });
    if (loaded.size >= policiesKept) loaded.delete(loaded.keys().next().value!);
  }
  loaded.set(message.hash, policy);
  return policy;
}

parentPort!.on('message', (message: EvaluationMessage) => {
  policyFor(message)
    .then((policy) => {
      policy.setData(message.data as object);
      const { input } = message;
      const whole = input.byteOffset === 0 && input.byteLength === input.buffer.byteLength;
      const bytes = whole ? input.buffer : input.slice().buffer;
      const out = policy.evaluate(bytes, message.entrypoint) as { result?: unknown }[];
      parentPort!.postMessage({ seq: message.seq, result: out[0]?.result } satisfies EvaluationReply);
    })
    .catch((error: unknown) => {
      // A policy that failed half-way may have left its instance in any state: drop it.
      loaded.delete(message.hash);
      parentPort!.postMessage({ seq: message.seq, error: describe(error) } satisfies EvaluationReply);
    });
});

/** opa-wasm throws plain objects or strings for some runtime errors (an unsupported builtin, say). */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object') {
    const e = error as { message?: unknown };
    if (typeof e.message === 'string') return e.message;
    return JSON.stringify(error);
  }
  return String(error);
}
