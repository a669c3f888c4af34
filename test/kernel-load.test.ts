import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

/** The compiled libraries (dist-test mirrors the source tree). */
const LIBS = resolve(__dirname, '../libs');
const MODULE_GOAL = 50;

const deciders = readdirSync(LIBS).flatMap((lib) =>
  readdirSync(join(LIBS, lib, 'src'))
    .filter((f) => f.endsWith('.decider.js'))
    .map((f) => join(LIBS, lib, 'src', f)),
);

/** Loads `file` alone in a fresh process: how many modules it took, and how long. */
function load(file: string): { modules: number; ms: number } {
  const script = `const t = performance.now(); require(${JSON.stringify(file)});
const ms = performance.now() - t;
console.log(JSON.stringify({ modules: Object.keys(require.cache).length, ms }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as {
    modules: number;
    ms: number;
  };
}

/**
 * A decider is a pure function of the domain (issue 28): loading one loads the
 * kernel and its own feature's pure files, never the framework or a driver.
 */
describe('the domain kernel: deciders load without the framework', () => {
  it(`loads each decider with fewer than ${MODULE_GOAL} modules`, () => {
    assert.ok(deciders.length >= 10, `found ${deciders.length} deciders`);
    for (const file of deciders) {
      const { modules, ms } = load(file);
      const name = file.slice(LIBS.length + 1).replace('/src/', '/');
      console.log(`# ${name}: ${modules} modules in ${ms.toFixed(1)} ms`);
      assert.ok(modules < MODULE_GOAL, `${name} loads ${modules} modules`);
    }
  });
});
