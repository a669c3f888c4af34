import { EventStore, KurrentDbEventStore, SqliteEventStore } from '../../event-store/src';
import { BullMqJobs, InProcessJobs, Jobs } from '../../jobs/src';
import { MemoryReadStore, MongoReadStore, ReadStore } from '../../read-store/src';
import type { Config } from './config';

/** Opens the adapters the configuration names (the composition root of every process). */
export async function openEngines(
  config: Config,
): Promise<{ events: EventStore; reads: ReadStore; jobs: Jobs }> {
  const events =
    config.eventStore.kind === 'sqlite'
      ? new SqliteEventStore({ path: config.eventStore.path })
      : new KurrentDbEventStore(config.eventStore.url);
  const reads =
    config.readStore.kind === 'memory'
      ? new MemoryReadStore()
      : new MongoReadStore({
          url: config.readStore.url,
          database: config.readStore.database,
          serverSelectionTimeoutMs: config.connectTimeoutMs,
        });
  // A server that is down at start is not fatal: requests answer 503 until it is back.
  if (reads instanceof MongoReadStore) await reads.connect().catch(() => undefined);
  const jobs =
    config.jobs.kind === 'in-process'
      ? new InProcessJobs()
      : new BullMqJobs({ url: config.jobs.url, prefix: config.jobs.prefix });
  return { events, reads, jobs };
}
