import Ajv, { type ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname } from 'node:path';
import { runInThisContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import RE2 from 're2';
import { patternProblems } from './custom-type-limits';

/**
 * A thread of the custom-type pool (CustomTypePool): runs one tenant program
 * at a time — a jq rule on an attestation's data, or a custom type's JSON
 * schema compiled and applied with ajv, its patterns on RE2. The pool
 * terminates the thread when a task runs over its budget.
 */
export type CustomTask =
  | { kind: 'jq'; rule: string; input: string }
  | { kind: 'check-schema'; schema: string }
  | { kind: 'validate'; schema: string; input: string };

export interface CustomTaskMessage {
  seq: number;
  task: CustomTask;
}

/** `retire`: the thread's memory grew past its resting size; the pool replaces it. */
export type CustomTaskReply =
  | { seq: number; value: unknown; retire?: boolean }
  | { seq: number; error: string; kind: 'error' | 'memory'; retire?: boolean };

interface JqInstance {
  raw(input: string, filter: string, flags: string[]): Promise<string>;
  HEAPU8: Uint8Array;
}

const { memoryBytes, restingBytes, nice } = workerData as {
  memoryBytes: number;
  restingBytes: number;
  nice: number;
};
// On Linux a nice value is the thread's own: the tenant's program yields the cores to serving (ADR 0005).
if (nice > 0) {
  try {
    setPriority(nice);
  } catch {
    // Refused on this platform: the budgets still bound the program.
  }
}

// The ceiling on jq's WebAssembly memory: a growth past it fails, so jq's
// allocation fails and jq aborts, instead of the thread taking what the build allows (256 MiB).
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}
const wasm = (
  globalThis as unknown as {
    WebAssembly: { Memory: { prototype: WasmMemory }; RuntimeError: new () => Error };
  }
).WebAssembly;
let refusedGrowth = false;
const grow = wasm.Memory.prototype.grow;
wasm.Memory.prototype.grow = function (this: WasmMemory, pages: number) {
  if (this.buffer.byteLength + pages * 65536 > memoryBytes) {
    refusedGrowth = true;
    throw new RangeError('over the memory ceiling');
  }
  return grow.call(this, pages);
};
// Emscripten's abort() message; the pool reports the failure itself.
console.error = () => undefined;

/**
 * jq-wasm's Emscripten glue, loaded with one change: it feeds jq's stdin a
 * byte at a time with `slice(1)`, copying the rest of the input each time
 * (quadratic: 1 s for 160 KB); `subarray(1)` is the same view without the copy.
 */
function loadJq(): Promise<JqInstance> {
  const file = require.resolve('jq-wasm/dist/build/jq.js');
  const source = readFileSync(file, 'utf8').replace(
    'stdinBuffer = stdinBuffer.slice(1);',
    'stdinBuffer = stdinBuffer.subarray(1);',
  );
  const module = { exports: {} as unknown };
  const factory = runInThisContext(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    {
      filename: file,
    },
  ) as (...args: unknown[]) => void;
  factory(module.exports, require, module, file, dirname(file));
  return (module.exports as () => Promise<JqInstance>)();
}

const jq = loadJq();
// The pool hands out tasks (and starts their budgets) once the thread is ready.
void jq.then(() => parentPort!.postMessage({ ready: true }));

/** jq's output as jq-wasm's json() reads it: nothing is null, one value is itself, several are an array. */
async function runJq(rule: string, input: string): Promise<unknown> {
  const exitCode = process.exitCode;
  try {
    const output = (await (await jq).raw(input, rule, ['-c'])).trim();
    if (!output) return null;
    const lines = output.split('\n').filter(Boolean);
    return lines.length > 1 ? lines.map((line) => JSON.parse(line) as unknown) : JSON.parse(output);
  } finally {
    // A jq that fails "exits", setting the exit code (3 for a compile error).
    process.exitCode = exitCode;
  }
}

const validators = new Map<string, ValidateFunction>();
const VALIDATORS_KEPT = 64;

/** The schema compiled by its own ajv (one tenant's `$id` cannot clash with another's), patterns on RE2. */
function validatorFor(schemaText: string): ValidateFunction {
  let validate = validators.get(schemaText);
  if (validate) {
    validators.delete(schemaText);
  } else {
    const ajv = new Ajv({
      allErrors: true,
      strict: false,
      code: { regExp: RE2 as unknown as Ajv['opts']['code']['regExp'] },
    });
    validate = ajv.compile(JSON.parse(schemaText) as object);
    if (validators.size >= VALIDATORS_KEPT) validators.delete(validators.keys().next().value!);
  }
  validators.set(schemaText, validate);
  return validate;
}

/** A schema's problems by field: its patterns RE2 cannot take, else what ajv says. */
function schemaCheck(schemaText: string): Record<string, string> {
  const problems = patternProblems(JSON.parse(schemaText), (pattern) => new RE2(pattern, 'u'));
  if (Object.keys(problems).length) return problems;
  try {
    validatorFor(schemaText);
    return {};
  } catch (error) {
    return { schema: error instanceof Error ? error.message : String(error) };
  }
}

function schemaErrors(schemaText: string, input: string): string[] {
  const validate = validatorFor(schemaText);
  if (validate(JSON.parse(input))) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}

async function perform(task: CustomTask): Promise<unknown> {
  switch (task.kind) {
    case 'jq':
      return runJq(task.rule, task.input);
    case 'check-schema':
      return schemaCheck(task.schema);
    case 'validate':
      return schemaErrors(task.schema, task.input);
  }
}

/** The thread holds more than its resting memory: replaced once it has answered. */
async function overgrown(): Promise<boolean> {
  const heap = (await jq).HEAPU8.length;
  return heap > restingBytes;
}

parentPort!.on('message', ({ seq, task }: CustomTaskMessage) => {
  refusedGrowth = false;
  perform(task)
    .then(async (value) => {
      parentPort!.postMessage({ seq, value, retire: await overgrown() } satisfies CustomTaskReply);
    })
    .catch(async (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      // An aborted jq (out of memory, say) is left in an unknown state: the thread is replaced.
      const aborted = error instanceof wasm.RuntimeError || /Aborted\(/.test(message);
      const reply: CustomTaskReply = refusedGrowth
        ? { seq, error: message, kind: 'memory', retire: true }
        : { seq, error: message, kind: 'error', retire: aborted || (await overgrown()) };
      parentPort!.postMessage(reply);
    });
});
