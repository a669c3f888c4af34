// Compiles the whole project (tests and benchmarks included) into dist-test,
// then deletes the outputs whose source is gone (a moved or deleted file must
// not leave an old test or module behind to be run); then generates the typed
// client from the compiled service's OpenAPI document and compiles the
// programs that use it (examples/, and the workspace, built into
// dist-test/workspace): a change to the API that breaks them fails here.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function compileForTests(root) {
  /** A step of the compile, run with node; a failed one ends it with its status. */
  const run = (args, env = {}) => {
    const step = spawnSync(process.execPath, args, {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ...env },
    });
    if (step.status !== 0) process.exit(step.status ?? 1);
  };
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  run([tsc, '-p', 'tsconfig.json']);
  const out = join(root, 'dist-test');
  const prune = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        prune(path);
        if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
      } else if (/\.js(\.map)?$/.test(name)) {
        const source = join(root, relative(out, path)).replace(/\.js(\.map)?$/, '.ts');
        if (!existsSync(source)) rmSync(path);
      }
    }
  };
  prune(out);
  run([join(root, 'scripts/generate-client.mjs'), 'dist-test'], {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=des-test`.trim(),
  });
  run([tsc, '-p', 'tsconfig.examples.json']);
  run([join(root, 'scripts/build-workspace.mjs'), 'dist-test']);
  return out;
}
