import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CompiledPolicy } from './opa-compiler';
import { PolicyError } from './policy-error';

export interface PolicyResult {
  allow: boolean;
  violations: string[];
}

/**
 * Evaluates a compiled policy with opa-wasm in a worker thread that is
 * terminated when it runs over its budget (a policy cannot run forever). The
 * module imports no network or file system: a policy cannot reach either.
 */
export function evaluatePolicy(
  compiled: CompiledPolicy,
  input: unknown,
  data: unknown,
  budgetMs: number,
): Promise<PolicyResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'wasm-worker.js'), {
      workerData: { wasm: compiled.wasm, entrypoints: compiled.entrypoints, input, data },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () =>
        finish(() => reject(new PolicyError('timeout', `the policy ran over its budget of ${budgetMs} ms`))),
      budgetMs,
    );
    worker.once('message', (message: { results?: Record<string, unknown>; error?: string }) =>
      finish(() => {
        if (message.error !== undefined) return reject(new PolicyError('policy_error', message.error));
        try {
          resolve(normalise(message.results ?? {}));
        } catch (error) {
          reject(error);
        }
      }),
    );
    worker.once('error', (error) => finish(() => reject(new PolicyError('policy_error', error.message))));
  });
}

/** The policy contract: a boolean `allow`, an optional set of strings `violations`. */
function normalise(results: Record<string, unknown>): PolicyResult {
  const allow = results['policy/allow'];
  if (allow === undefined) {
    throw new PolicyError(
      'policy_error',
      '`allow` is undefined for this input (give it a default: `default allow := false`)',
    );
  }
  if (typeof allow !== 'boolean')
    throw new PolicyError('policy_error', `\`allow\` must be a boolean, not ${JSON.stringify(allow)}`);
  const violations = results['policy/violations'] ?? [];
  if (!Array.isArray(violations) || !violations.every((v) => typeof v === 'string')) {
    throw new PolicyError('policy_error', '`violations` must be a set of strings');
  }
  return { allow, violations: [...new Set(violations as string[])].sort() };
}
