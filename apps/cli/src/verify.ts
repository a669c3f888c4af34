import { verifyLedger } from '#des/event-store';
import { ledgerSigner, verifyTrees } from '#des/ledger';
import { type Config, openEventStore, ServiceKey } from '#des/platform';

/**
 * `verify [org]`: walks the log and recomputes every organization's hash
 * chain (SQLite) and transparency-log tree (or one's), and checks every
 * signed checkpoint kept in the log against the tree of its size. Prints each
 * chain's head and tree, and names the first broken link or failing
 * checkpoint; false when one is.
 */
export async function verify(config: Config, org: string | undefined): Promise<boolean> {
  const chainsIntact = await verifyChains(config, org);
  return (await verifyCheckpoints(config, org)) && chainsIntact;
}

async function verifyCheckpoints(config: Config, org: string | undefined): Promise<boolean> {
  const store = openEventStore(config);
  try {
    const vkey = ledgerSigner(config, new ServiceKey(config)).vkey;
    const started = performance.now();
    const { trees, events } = await verifyTrees(store, vkey, { org });
    const seconds = (performance.now() - started) / 1000;
    for (const t of trees) {
      const f = t.failed;
      console.log(
        `${t.org}: tree of ${t.leaves} events, ${t.checkpoints} signed checkpoint(s)` +
          (f ? '' : t.checkpoints ? ', every one holds' : ''),
      );
      if (f)
        console.log(
          `  CHECKPOINT FAILS at position ${f.position} (tree size ${f.treeSize}): ${f.reason}; ` +
            `the change is among its events ${f.leaves.from}..${f.leaves.to - 1} (log positions ${f.leaves.positions[0]}..${f.leaves.positions[1]})`,
        );
    }
    const failed = trees.filter((t) => t.failed).length;
    console.log(
      `${events} events rebuilt into trees in ${seconds.toFixed(2)} s: ` +
        (failed ? `${failed} tree(s) with a failing checkpoint` : 'every checkpoint holds'),
    );
    return failed === 0;
  } finally {
    await store.close();
  }
}

async function verifyChains(config: Config, org: string | undefined): Promise<boolean> {
  const store = openEventStore(config);
  try {
    if (store.kind !== 'sqlite') {
      console.log(
        'this event store keeps no hash chain (KurrentDB): the trees and their checkpoints are checked',
      );
      return true;
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
