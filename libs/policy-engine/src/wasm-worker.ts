import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { parentPort, workerData } from 'node:worker_threads';

/** Runs in a worker thread: one evaluation of a compiled policy, so the caller can stop it. */
interface Job {
  wasm: Uint8Array;
  entrypoints: string[];
  input: unknown;
  data: unknown;
}

(async () => {
  const job = workerData as Job;
  const policy = await loadPolicy(job.wasm);
  policy.setData(job.data as object);
  const results: Record<string, unknown> = {};
  for (const entrypoint of job.entrypoints) {
    const out = policy.evaluate(job.input, entrypoint) as { result?: unknown }[];
    results[entrypoint] = out.length ? out[0].result : undefined;
  }
  parentPort!.postMessage({ results });
})().catch((error: unknown) => {
  parentPort!.postMessage({ error: describe(error) });
});

/** opa-wasm throws plain objects for some runtime errors (an unsupported builtin, say). */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object') {
    const e = error as { message?: unknown; code?: unknown };
    if (typeof e.message === 'string') return e.message;
    return JSON.stringify(error);
  }
  return String(error);
}
