#!/usr/bin/env node
// `npm run bench`: compiles, then runs every bench/*.bench.ts in turn. Each
// prints its figures and writes them to bench/results/<name>.json.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileForTests } from './compile.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
compileForTests(root);
// Names select benchmarks; flags (`--smoke`: small sizes, for CI) go to every benchmark.
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const benches = readdirSync(join(root, 'dist-test/bench'))
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
let failed = 0;
for (const bench of benches) {
  console.log(`\n== ${bench.replace('.bench.js', '')}`);
  const run = spawnSync(process.execPath, ['--expose-gc', join(root, 'dist-test/bench', bench), ...flags], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      LOG_LEVEL: 'silent',
      // `#des/<lib>` imports resolve to dist-test under this condition (package.json "imports").
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=des-test`.trim(),
    },
  });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
