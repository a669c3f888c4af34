import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
export function reactionCheckpointFile(path: string): ReactionCheckpointStore {
  let written = '';
  let pending: string | undefined;
  let lastWriteAt = 0;
  let timer: NodeJS.Timeout | undefined;
  const write = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending === undefined || pending === written) return;
    mkdirSync(dirname(path), { recursive: true });
    const draft = `${path}.${process.pid}.tmp`;
    writeFileSync(draft, pending);
    renameSync(draft, path);
    written = pending;
    pending = undefined;
    lastWriteAt = Date.now();
  };
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
      if (wait <= 0) write();
      else if (!timer) {
        timer = setTimeout(write, wait);
        timer.unref();
      }
    },
    flush: write,
  };
}
