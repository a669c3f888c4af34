import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

let memo: string | undefined;

/**
 * A hash of the service's compiled libraries: saved read models are used
 * only by the code that projected them, since any change (a projection, an
 * index, a helper it calls) may change what they should hold.
 */
export function codeFingerprint(): string {
  if (memo) return memo;
  const libs = resolve(__dirname, '..', '..');
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js'))
        hash.update(path.slice(libs.length)).update('\0').update(readFileSync(path));
    }
  };
  walk(libs);
  memo = hash.digest('hex');
  return memo;
}
