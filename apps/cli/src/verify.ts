import { verifyLedger } from '#des/event-store';
import { type Config, openEventStore } from '#des/platform';

/**
 * `verify [org]`: walks the log and recomputes every organization's hash
 * chain (or one's). Prints each chain's head (position and hash) and names
 * the first broken link; false when one is broken.
 */
export async function verify(config: Config, org: string | undefined): Promise<boolean> {
  const store = openEventStore(config);
  try {
    if (store.kind !== 'sqlite') {
      throw new Error('this event store keeps no hash chain yet (KurrentDB): there is nothing to verify');
    }
    const started = performance.now();
    const { chains, events } = await verifyLedger(store, { org });
    const seconds = (performance.now() - started) / 1000;
    if (events > 0 && chains.length === 0 && org !== undefined) {
      console.log(`no events of '${org}' in the log`);
    }
    for (const chain of chains) {
      const name = chain.org === '' ? '(service)' : chain.org;
      console.log(
        `${name}: ${chain.events} events, head at position ${chain.head.position}: ${chain.head.hash || '(empty)'}`,
      );
      if (chain.broken) {
        const b = chain.broken;
        console.log(
          `  BROKEN at position ${b.position} (${b.stream} revision ${b.revision}, ${b.type}): stored ${b.stored}, the chain makes ${b.expected}`,
        );
      }
    }
    const broken = chains.filter((c) => c.broken).length;
    console.log(
      `${events} events checked in ${seconds.toFixed(2)} s (${Math.round(events / Math.max(seconds, 1e-6))}/s): ` +
        (broken ? `${broken} broken chain(s)` : 'every chain intact'),
    );
    return broken === 0;
  } finally {
    await store.close();
  }
}
