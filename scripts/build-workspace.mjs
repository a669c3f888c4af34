#!/usr/bin/env node
// The evidence workspace (apps/workspace): type-checked against the typed
// client (generated first by scripts/generate-client.mjs), then built by
// Vite into <build dir>/workspace, which the compiled service serves at /ui/.
// `node scripts/build-workspace.mjs dist` (npm run build) or `dist-test`
// (npm test's compile step).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, process.argv[2] ?? 'dist', 'workspace');
const tsc = spawnSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'apps/workspace/tsconfig.json'],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
await build({
  configFile: join(root, 'apps/workspace/vite.config.mts'),
  logLevel: 'warn',
  build: { outDir },
});
console.log(`# workspace built → ${outDir}`);
