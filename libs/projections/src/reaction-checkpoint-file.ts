import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ReactionCheckpointStore } from './projector';

/** Reaction checkpoints in a JSON file, replaced whole (write, then rename) after each batch. */
export function reactionCheckpointFile(path: string): ReactionCheckpointStore {
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
      mkdirSync(dirname(path), { recursive: true });
      const draft = `${path}.${process.pid}.tmp`;
      writeFileSync(draft, JSON.stringify(positions));
      renameSync(draft, path);
    },
  };
}
