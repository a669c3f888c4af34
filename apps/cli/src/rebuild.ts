import { SingleBar, Presets } from 'cli-progress';
import { openEngines } from '../../../libs/platform/src/engines';
import type { Config } from '../../../libs/platform/src';
import { Projector } from '../../../libs/projections/src';
import { allProjections } from '../../api/src/projections';

/**
 * Drops every read model and replays the whole log into it. In server mode,
 * stop the projector first (or let this run while it holds no lease).
 */
export async function rebuild(config: Config): Promise<void> {
  const { events, reads, jobs } = await openEngines(config);
  try {
    const projector = new Projector(events, reads, allProjections);
    const started = Date.now();
    // Counted in events. The total is the log's event count where the store can
    // tell (SQLite); KurrentDB cannot, so that bar shows the count done only.
    let bar: SingleBar | undefined;
    let known = false;
    const done = await projector.rebuild((n, total) => {
      if (!bar) {
        known = total !== undefined;
        bar = new SingleBar(
          {
            format: known
              ? 'rebuild [{bar}] {percentage}% | {value}/{total} events | {eta}s left'
              : 'rebuild | {value} events | {duration}s',
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
  } finally {
    await jobs.close();
    await reads.close();
    await events.close();
  }
}
