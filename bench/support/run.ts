import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';

/** `npm run bench -- --smoke` (or BENCH_SMOKE=1): every benchmark at a small size, so CI keeps them running. */
export const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';

/** The full size, or the smoke size under --smoke. */
export const sized = (full: number, small: number) => (smoke ? small : full);

/** Runs a benchmark, then writes its figures to bench/results/<name>.json and exits. */
export function runBenchmark(
  name: string,
  results: Record<string, unknown>,
  body: () => Promise<void>,
): void {
  body().then(
    () => {
      const dir = resolve(__dirname, '../../../bench/results');
      mkdirSync(dir, { recursive: true });
      // Smoke figures say only that the benchmark runs: they never replace a full run's.
      const file = join(dir, smoke ? `${name}.smoke.json` : `${name}.json`);
      const machine = { cpus: cpus().length, node: process.version };
      writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), machine, ...results }, null, 2));
      console.log(`figures written to ${file}`);
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
