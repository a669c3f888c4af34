import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ReactionCheckpointStore } from './projection-checkpoints';

/** Most often the file is written while events come in (a write costs a rename on the event loop). */
const MIN_INTERVAL_MS = 1000;

/**
 * Reaction checkpoints in a JSON file, replaced whole (write, then rename):
 * at most once a second while batches come in, and on flush (the projector
 * stops). After a crash the file may be up to a second behind; the reactions
 * of those events run again, and what they do is idempotent by id (appends
 * of events already in the target stream and jobs already queued are no-ops).
 */
export function reactionCheckpointFile(
  path: string,
  report: { failed?(error: unknown): void; written?(): void } = {},
): ReactionCheckpointStore {
  let written = '';
  let pending: string | undefined;
  let lastWriteAt = 0;
  let timer: NodeJS.Timeout | undefined;
  /** Consecutive failed writes (a full disk): the next try waits longer, up to 30 s. */
  let failures = 0;
  const later = (wait: number) => {
    if (timer) return;
    timer = setTimeout(write, wait);
    timer.unref();
  };
  // Never throws: a write that fails (a full disk) is reported and tried again later; the
  // reactions of the events since the last good write would run again after a crash, harmlessly.
  function write(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending === undefined || pending === written) return;
    const draft = `${path}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(draft, pending);
      renameSync(draft, path);
    } catch (error) {
      rmSync(draft, { force: true });
      failures++;
      report.failed?.(error);
      later(Math.min(30_000, MIN_INTERVAL_MS * 2 ** Math.min(failures, 5)));
      return;
    }
    if (failures > 0) report.written?.();
    failures = 0;
    written = pending;
    pending = undefined;
    lastWriteAt = Date.now();
  }
  return {
    load() {
      try {
        return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
        throw error;
      }
    },
    save(positions) {
      pending = JSON.stringify(positions);
      if (pending === written) return;
      const wait = lastWriteAt + MIN_INTERVAL_MS - Date.now();
      if (failures > 0) return; // a retry is scheduled
      if (wait <= 0) write();
      else later(wait);
    },
    flush: write,
  };
}
