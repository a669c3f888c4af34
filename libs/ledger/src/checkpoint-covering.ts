import { eventAt, orgOf, type EventStore, microsToSeconds } from '#des/event-store';
import type { ReadStore } from '#des/read-store';
import { LEDGER_CHECKPOINTS } from './checkpoints.projection';
import { storedAsWritten } from './ledger-sequencer.service';
import { entryPosition, integratedSize, LEDGER_SEQUENCER } from './tree-sequencer';

/** The signed checkpoint a report at an instant prints: the first whose tree holds every event by then. */
export interface CoveringCheckpoint {
  /** The organization's events recorded by the instant (the tree size that covers them). */
  leaves: number;
  checkpoint: { origin: string; tree_size: number; root_hash: string; recorded_at: number } | null;
}

/**
 * The first checkpoint covering an organization's history up to `at` (UNIX
 * seconds), found by a binary search of its leaves' instants (a few event
 * reads). Null `checkpoint`: none covers it yet (it is signed within
 * DES_LEDGER_CHECKPOINT_MS of the events); null: nothing recorded by then.
 */
export async function checkpointCovering(
  events: EventStore,
  reads: ReadStore,
  org: string,
  at: number,
): Promise<CoveringCheckpoint | null> {
  const store = storedAsWritten(events);
  const size = await integratedSize(reads, org);
  const recordedAt = async (index: number) => {
    const position = await entryPosition(reads, org, index);
    const event = position === null ? undefined : await eventAt(store, position);
    return event ? microsToSeconds(event.recordedAt) : Infinity;
  };
  // The most leaves whose last one was recorded by `at`.
  let [lo, hi] = [0, size];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if ((await recordedAt(mid - 1)) <= at) lo = mid;
    else hi = mid - 1;
  }
  if (lo === 0) return null;
  // Every leaf integrated was recorded by then: are events recorded by then still on their way?
  if (lo === size && !(await integratedThrough(store, reads, org, at)))
    return { leaves: lo, checkpoint: null };
  const [doc] = await reads
    .collection(LEDGER_CHECKPOINTS)
    .find({ org, tree_size: { $gte: lo } }, { sort: { tree_size: 1 }, limit: 1 });
  return {
    leaves: lo,
    checkpoint: doc
      ? {
          origin: doc.origin as string,
          tree_size: doc.tree_size as number,
          root_hash: doc.root_hash as string,
          recorded_at: doc.recorded_at as number,
        }
      : null,
  };
}

/**
 * Whether the sequencer has integrated every event of `org` recorded by
 * `at`: none of the events it has not read yet (a few at most, it reads
 * every 100 ms) is one of them.
 */
async function integratedThrough(
  store: EventStore,
  reads: ReadStore,
  org: string,
  at: number,
): Promise<boolean> {
  const read = (await reads.collection(LEDGER_SEQUENCER).findOne({ _id: 'sequencer' }))?.position as
    number | undefined;
  const unread = await store.readAll(read ?? 0, 100);
  const byThen = unread.filter((e) => microsToSeconds(e.recordedAt) <= at);
  if (byThen.length === unread.length && unread.length === 100) return false;
  return !byThen.some((e) => orgOf(e.metadata) === org);
}
