import { setPriority } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { parseCheckedYaml, StackOverflowRefusal, type YamlLimits, YamlRefusal } from './bounded-yaml';

/**
 * A thread of the YAML pool (yaml-parsing.ts): parses one tenant document at
 * a time, its text already measured on the event loop. The pool terminates
 * the thread when a parse runs over its time budget; its heap is bounded by
 * the thread's `resourceLimits`.
 */
export interface YamlParseTask {
  seq: number;
  text: string;
  limits: YamlLimits;
}

/** `retire`: the thread is not to be used again (a stack overflow, or its heap grew past its resting size). */
export type YamlParseReply =
  | { seq: number; value: unknown; retire: boolean }
  | { seq: number; refusal: { kind: 'syntax' | 'limit'; message: string }; retire: boolean }
  | { seq: number; error: string; retire: true };

const { nice, restingBytes } = workerData as { nice: number; restingBytes: number };
if (nice > 0) {
  try {
    setPriority(nice);
  } catch {
    // Refused on this platform: the budgets still bound the parse.
  }
}

const overgrown = () => getHeapStatistics().used_heap_size > restingBytes;

parentPort!.on('message', ({ seq, text, limits }: YamlParseTask) => {
  let reply: YamlParseReply;
  try {
    reply = { seq, value: parseCheckedYaml(text, limits), retire: overgrown() };
  } catch (error) {
    if (error instanceof YamlRefusal && error.status === 400)
      reply = {
        seq,
        refusal: { kind: error.kind, message: error.message },
        retire: error instanceof StackOverflowRefusal || overgrown(),
      };
    else reply = { seq, error: error instanceof Error ? error.message : String(error), retire: true };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true });
