import { canonicalTextOf, orgOf, type EventStore } from '#des/event-store';
import type { CheckpointSigned } from './checkpoint.decider';
import { GrowingTree, leafHash, rootAt } from './merkle';
import { checkpointText, openNote } from './signed-note';

export interface CheckpointFailure {
  org: string;
  treeSize: number;
  /** Where the checkpoint is in the log. */
  position: number;
  reason: string;
  /** The leaves the change is among: after the last checkpoint that held, up to this one. */
  leaves: { from: number; to: number; positions: [number, number] };
}

export interface TreeReport {
  org: string;
  leaves: number;
  checkpoints: number;
  /** The first checkpoint the log no longer makes (its root, or its signature). */
  failed?: CheckpointFailure;
}

/**
 * Walks the log as stored, rebuilds every organization's tree (or one's),
 * and checks each checkpoint kept in the log against it: the note must be
 * signed by `vkey`, say what its fields say, and its root must be the root
 * of the tree of its size.
 */
export async function verifyTrees(
  store: EventStore,
  vkey: string,
  options: { org?: string; batchSize?: number; onProgress?: (events: number) => void } = {},
): Promise<{ trees: TreeReport[]; events: number }> {
  const trees = new Map<
    string,
    { tree: GrowingTree; positions: number[]; report: TreeReport; held: number }
  >();
  const of = (org: string) => {
    let t = trees.get(org);
    if (!t) {
      t = { tree: new GrowingTree(), positions: [], report: { org, leaves: 0, checkpoints: 0 }, held: 0 };
      trees.set(org, t);
    }
    return t;
  };
  let events = 0;
  for (let after = 0; ;) {
    const batch = await store.readAll(after, options.batchSize ?? 5000);
    if (!batch.length) break;
    for (const e of batch) {
      events++;
      const org = orgOf(e.metadata);
      if (org && (options.org === undefined || org === options.org)) {
        const t = of(org);
        t.tree.append(leafHash(canonicalTextOf(e)));
        t.positions.push(e.position);
        t.report.leaves++;
      } else if (e.type === 'ledger_checkpoint_signed') {
        const { data } = e as unknown as CheckpointSigned;
        if (options.org !== undefined && data.org !== options.org) continue;
        const t = of(data.org);
        t.report.checkpoints++;
        if (t.report.failed) continue;
        const reason = checkpointProblem(data, t.tree, vkey);
        if (reason) {
          const from = t.held;
          const to = Math.min(data.tree_size, t.positions.length);
          t.report.failed = {
            org: data.org,
            treeSize: data.tree_size,
            position: e.position,
            reason,
            leaves: { from, to, positions: [t.positions[from] ?? 0, t.positions[to - 1] ?? 0] },
          };
        } else t.held = data.tree_size;
      }
    }
    after = batch[batch.length - 1].position;
    options.onProgress?.(events);
  }
  return {
    trees: [...trees.values()].map((t) => t.report).sort((a, b) => a.org.localeCompare(b.org)),
    events,
  };
}

function checkpointProblem(
  data: CheckpointSigned['data'],
  tree: GrowingTree,
  vkey: string,
): string | undefined {
  const opened = openNote(data.note, vkey);
  if ('error' in opened) return opened.error;
  if (data.tree_size > tree.size)
    return `it counts ${data.tree_size} leaves where the log holds ${tree.size} before it`;
  const root = rootAt(tree, data.tree_size);
  const text = checkpointText({ origin: data.origin, treeSize: data.tree_size, rootHash: root });
  if (opened.text !== text)
    return `its root ${data.root_hash} is not the root the log makes, ${root.toString('base64')}`;
  return undefined;
}
