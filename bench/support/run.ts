import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';

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
      const file = join(dir, `${name}.json`);
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
