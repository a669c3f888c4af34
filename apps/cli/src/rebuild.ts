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
    const head = await events.head();
    const bar = new SingleBar(
      { format: 'rebuild [{bar}] {percentage}% | {value}/{total} events | {eta}s left' },
      Presets.shades_classic,
    );
    const projector = new Projector(events, reads, allProjections);
    const total = head.position;
    bar.start(total, 0);
    const started = Date.now();
    const done = await projector.rebuild((n) => bar.update(Math.min(n, total)));
    bar.update(total);
    bar.stop();
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
