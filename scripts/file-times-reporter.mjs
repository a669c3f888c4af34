// A node:test reporter that writes each test file's time, slowest first: the
// durations of the file's top-level tests and suites, summed (`npm test` passes
// it beside the spec reporter; the list goes to dist-test/test-file-times.txt).
import { relative } from 'node:path';

export default async function* fileTimes(source) {
  const byFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || !file) continue;
    byFile.set(file, (byFile.get(file) ?? 0) + (details?.duration_ms ?? 0));
  }
  const rows = [...byFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  yield `${(total / 60_000).toFixed(1)} min in ${rows.length} files\n`;
  for (const [file, ms] of rows) yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${relative(process.cwd(), file)}\n`;
}
