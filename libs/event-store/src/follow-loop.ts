import type { BatchHandler, FollowOptions, Following, StoredEvent } from './event-store.port';

/**
 * The catch-up-then-live loop shared by adapters that read the log in batches
 * and learn of new events by a wake-up signal (with a poll as a fallback, for
 * writers in other processes).
 */
export function followByPolling(
  afterPosition: number,
  handler: BatchHandler,
  options: FollowOptions,
  deps: {
    readAll(after: number, limit: number): Promise<StoredEvent[]>;
    waitForAppend(timeoutMs: number): Promise<void>;
    pollMs: number;
    /**
     * True when nothing this process appended lies past `position`: the loop then waits for the
     * next append (or the poll) instead of reading the log's end to find it empty. Another
     * process's append that landed meanwhile is read at the poll, as one landing later would be.
     */
    caughtUp?(position: number): boolean;
  },
): Following {
  const batchSize = options.batchSize ?? 500;
  const retryDelayMs = options.retryDelayMs ?? 500;
  let stopped = false;
  let position = afterPosition;
  const done = (async () => {
    while (!stopped) {
      try {
        const batch = await deps.readAll(position, batchSize);
        if (stopped) break;
        if (batch.length === 0) {
          await deps.waitForAppend(deps.pollMs);
          continue;
        }
        await handler(batch);
        position = batch[batch.length - 1].position;
        if (!stopped && deps.caughtUp?.(position)) await deps.waitForAppend(deps.pollMs);
      } catch (error) {
        if (stopped) break;
        options.onError?.(error);
        await new Promise((r) => setTimeout(r, retryDelayMs));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
    },
  };
}
