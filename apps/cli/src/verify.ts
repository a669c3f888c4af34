import { ledgerSigner, verifyTrees } from '#des/ledger';
import { type Config, openEventStore, ServiceKey } from '#des/platform';

/**
 * `verify [org]`: walks the log as stored, rebuilds every organization's
 * transparency-log tree (or one's), and checks every signed checkpoint kept
 * in the log against the tree of its size. Prints each tree, and names the
 * first failing checkpoint with the events the change is among; false when
 * one fails.
 */
export async function verify(config: Config, org: string | undefined): Promise<boolean> {
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
