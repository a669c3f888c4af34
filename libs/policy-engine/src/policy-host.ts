import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EvaluationMessage, EvaluationReply, WorkerSettings } from './wasm-worker';

/**
 * A child process of the PolicyEvaluator pool, with a heap of its own
 * (`--max-old-space-size`): it runs policies on one thread (wasm-worker.ts)
 * and relays the evaluations to it. Over its budget an evaluation's thread is
 * terminated and replaced here, without starting a process; a policy that
 * exhausts the heap (one large allocation aborts the whole process, whatever
 * a thread's resourceLimits) ends this process alone, never the service.
 */
export type HostMessage = EvaluationMessage | { abort: number };
export type HostReply = EvaluationReply | { ready: true };

const settings = JSON.parse(process.env.DES_POLICY_WORKER ?? '{}') as WorkerSettings & { heapMb: number };
const send = (reply: HostReply) => process.send!(reply);

let thread: Worker;
function start(): void {
  thread = new Worker(join(__dirname, 'wasm-worker.js'), {
    workerData: settings,
    resourceLimits: { maxOldGenerationSizeMb: settings.heapMb },
  });
  thread.on('message', (reply: EvaluationReply) => send(reply));
  thread.once('online', () => send({ ready: true }));
  // Out of its heap (gracefully, this time): this process goes too, and the pool says why.
  thread.on('error', (error) => {
    console.error(`the policy thread died: ${error.message}`);
    process.exit(70);
  });
}
start();

process.on('message', (message: HostMessage) => {
  if ('abort' in message) {
    // Over its budget: the WebAssembly is stopped with its thread, and a fresh thread takes its place.
    const stopped = thread;
    stopped.removeAllListeners();
    void stopped.terminate();
    start();
    return;
  }
  thread.postMessage(message);
});

// The service gone (killed, even), this process goes too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
}, 250).unref();
process.on('disconnect', () => process.exit(0));
