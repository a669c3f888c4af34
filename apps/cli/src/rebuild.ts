import { SingleBar, Presets } from 'cli-progress';
import { openEngines, PROJECTOR_LEASE, type Config } from '#des/platform';
import { Lease, Projector } from '#des/projections';
import type { ReadStore } from '#des/read-store';
import { allProjections, allUpcasters } from '#des/service';

/**
 * Drops every read model and replays the whole log into it. In server mode it
 * takes the projector's lease first and refuses to run while a projector
 * process holds it (applying events meanwhile would race the replay).
 */
export async function rebuild(config: Config): Promise<void> {
  const { events, reads, jobs } = await openEngines(config, allUpcasters);
  let lease: HeldLease | undefined;
  try {
    lease = reads.kind === 'memory' ? undefined : await takeLease(reads, config.projectorLeaseMs);
    const projector = new Projector(events, reads, allProjections, {
      logger: { log: (m) => console.log(m), error: (m) => console.error(`\n${m}`) },
    });
    const started = Date.now();
    // Counted in events. The total is the log's event count where the store can
    // tell (SQLite); KurrentDB cannot, so that bar shows the count done only.
    let bar: SingleBar | undefined;
    let known = false;
    const done = await projector.rebuild((n, total) => {
      lease?.check();
      if (!bar) {
        known = total !== undefined;
        bar = new SingleBar(
          {
            format: known
              ? 'rebuild [{bar}] {percentage}% | {value}/{total} events | {eta}s left'
              : 'rebuild | {value} events | {duration}s',
            // Off a terminal (a pod's log, CI) a line every 5 s instead of a redrawn bar.
            noTTYOutput: true,
            notTTYSchedule: 5000,
          },
          Presets.shades_classic,
        );
        bar.start(total ?? 0, 0);
      }
      // Events appended during the rebuild may take it past the count taken at its start.
      if (known && total !== undefined && n > total) bar.setTotal(n);
      bar.update(n);
    });
    bar?.stop();
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `rebuilt ${allProjections.length} projections from ${done} events in ${seconds.toFixed(1)} s`,
    );
    if (reads.kind === 'memory') {
      console.log('note: the embedded read store lives in memory and is rebuilt at every start anyway');
    }
    const failed = projector.failures;
    if (failed.length > 0) {
      throw new Error(
        `${failed.length} projection(s) stopped at an event they cannot apply: ` +
          failed.map((f) => `${f.projection} at log position ${f.position} (${f.error})`).join('; '),
      );
    }
  } finally {
    await lease?.release();
    await jobs.close();
    await reads.close();
    await events.close();
  }
}

interface HeldLease {
  /** Throws once the lease could not be renewed: the rebuild must stop. */
  check(): void;
  release(): Promise<void>;
}

/** The projector's lease, renewed while the rebuild runs; refused while a projector holds it. */
async function takeLease(reads: ReadStore, ttlMs: number): Promise<HeldLease> {
  const lease = new Lease(reads, PROJECTOR_LEASE, ttlMs);
  if (!(await lease.acquire())) {
    throw new Error(
      'a projector process holds the projector lease (it is applying events to the read models); ' +
        `stop every projector (and server in the projector role), wait up to ${Math.ceil(ttlMs / 1000)} s ` +
        'for its lease to lapse, and run the rebuild again',
    );
  }
  let renewedAt = Date.now();
  let taken = false;
  const renew = async () => {
    try {
      if (await lease.acquire()) renewedAt = Date.now();
      else taken = true;
    } catch {
      // Unreachable for now: the lease lasts until renewedAt + ttlMs.
    }
  };
  const timer = setInterval(() => void renew(), ttlMs / 3);
  return {
    check() {
      if (taken || Date.now() - renewedAt >= ttlMs) {
        throw new Error('the projector lease could not be renewed; the rebuild stopped: run it again');
      }
    },
    async release() {
      clearInterval(timer);
      await lease.release().catch(() => undefined);
    },
  };
}
