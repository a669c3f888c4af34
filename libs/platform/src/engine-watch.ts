import { redactUrl } from './settings';
import { withTimeout } from './with-timeout';

export interface WatchedEngine {
  /** As an operator names it: MongoDB, Redis, KurrentDB, SQLite. */
  engine: string;
  /** Its address, without credentials. */
  address: string;
  ping(): Promise<void>;
}

export interface EngineWatchLog {
  log(message: string): void;
  warn(message: string): void;
}

/** Delays between tries at start: quick at first, never silent for more than 5 s. */
const BACKOFF_MS = [500, 1000, 2000, 4000, 5000];

/**
 * At start, tries each engine until it answers, one log line per failed try
 * (engine, address, cause, when the next try is) and one when it answers
 * after failing. The process does not wait for it: requests answer 503 and
 * readiness names the engine until then.
 */
export class EngineWatch {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly log: EngineWatchLog,
    private readonly timeoutMs: number,
  ) {}

  watch(engines: WatchedEngine[]): Promise<void> {
    return Promise.all(engines.map((e) => this.untilUp(e))).then(() => undefined);
  }

  private async untilUp(e: WatchedEngine): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt++) {
      const cause = await this.tryOnce(e);
      if (cause === undefined) {
        if (attempt > 1) this.log.log(`${e.engine} at ${e.address} reachable after ${attempt} tries`);
        return;
      }
      const delay = BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)];
      this.log.warn(
        `${e.engine} at ${e.address} unreachable: ${cause}; try ${attempt + 1} in ${delay / 1000} s`,
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, delay);
        timer.unref();
        this.timers.add(timer);
      });
    }
  }

  private async tryOnce(e: WatchedEngine): Promise<string | undefined> {
    try {
      await withTimeout(e.ping(), this.timeoutMs, `no answer in ${this.timeoutMs} ms`);
      return undefined;
    } catch (error) {
      return causeOf(error);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
  }
}

/** The innermost useful message of an error (drivers wrap the connection's). */
export function causeOf(error: unknown): string {
  let e = error as { message?: string; cause?: unknown; code?: string; errors?: unknown[] } | undefined;
  const seen = new Set<unknown>();
  let message = e?.message ?? String(error);
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    if (e.message) message = e.code && !e.message.includes(e.code) ? `${e.message} (${e.code})` : e.message;
    const inner = e.cause ?? (Array.isArray(e.errors) ? e.errors[0] : undefined);
    if (!inner || typeof inner !== 'object') break;
    e = inner as typeof e;
  }
  return redactUrl(message.split('\n')[0]);
}
