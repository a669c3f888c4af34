import { EventStore, KurrentDbEventStore, SqliteEventStore, type Upcaster, UpcastingEventStore } from '#des/event-store';
import { BullMqJobs, InProcessJobs, Jobs } from '#des/jobs';
import { MemoryReadStore, MongoReadStore, ReadStore, TenantReadGate } from '#des/read-store';
import { Logger } from '@nestjs/common';
import type { Config } from './config';

/** The event store the configuration names, as stored (the ledger's verification hashes those bytes). */
export function openEventStore(config: Config): EventStore {
  return config.eventStore.kind === 'sqlite'
    ? new SqliteEventStore({ path: config.eventStore.path, maxAppendSize: config.maxAppendSize })
    : new KurrentDbEventStore(config.eventStore.url, {
        connectTimeoutMs: config.connectTimeoutMs,
        maxAppendSize: config.maxAppendSize,
      });
}

/**
 * Opens the adapters the configuration names (the composition root of every
 * process). The domain reads the log through `upcasters` (every feature's:
 * `allUpcasters` of `#des/service`), so old events read in today's schema.
 */
export async function openEngines(
  config: Config,
  upcasters: Upcaster[],
): Promise<{ events: EventStore; reads: ReadStore; jobs: Jobs }> {
  const events = new UpcastingEventStore(openEventStore(config), upcasters);
  const reads =
    config.readStore.kind === 'memory'
      ? new MemoryReadStore()
      : new MongoReadStore({
          url: config.readStore.url,
          database: config.readStore.database,
          serverSelectionTimeoutMs: config.connectTimeoutMs,
          gate: new TenantReadGate(config.orgConcurrentReads),
        });
  // A server that is down at start is not fatal: requests answer 503 until it is back.
  if (reads instanceof MongoReadStore) await reads.connect().catch(() => undefined);
  const jobs =
    config.jobs.kind === 'in-process'
      ? new InProcessJobs()
      : new BullMqJobs({
          url: config.jobs.url,
          prefix: config.jobs.prefix,
          timeoutMs: config.connectTimeoutMs,
          lockMs: config.jobs.lockMs,
          onError: throttledWarning('jobs'),
        });
  return { events, reads, jobs };
}

/** Logs a background error, the same message at most once a minute (an outage would repeat it every retry). */
function throttledWarning(context: string): (error: Error) => void {
  const logger = new Logger(context);
  const lastLogged = new Map<string, number>();
  return (error) => {
    const now = Date.now();
    if (now - (lastLogged.get(error.message) ?? 0) < 60_000) return;
    lastLogged.set(error.message, now);
    logger.warn(error.message);
  };
}
