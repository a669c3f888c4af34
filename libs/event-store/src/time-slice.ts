/**
 * Cooperative time slicing for long synchronous runs of work (a projector
 * batch on the in-memory read store is synchronous from its first event to
 * its last write; a long stream read from SQLite): `await slice.turn()` gives
 * the event loop a turn once `budgetMs` of work has run since the last one, so
 * requests are served in between. On a store with real I/O the awaits already
 * yield, and this costs a clock read. `due` tells a tight loop whether to await.
 */
export class TimeSlice {
  private since = performance.now();

  constructor(private readonly budgetMs = 5) {}

  get due(): boolean {
    return performance.now() - this.since >= this.budgetMs;
  }

  async turn(): Promise<void> {
    if (!this.due) return;
    await nextTurn();
    this.since = performance.now();
  }
}

/** Whose work the current async context does: the organization the request scope charges (set by the read store). */
let ownerOfWork: () => string | undefined = () => undefined;

/** Names how to find whose work runs now (the request scope's organization); called once, by the scope's owner. */
export function setTurnOwner(owner: () => string | undefined): void {
  ownerOfWork = owner;
}

/** Per organization, the sliced work waiting for its next turn, oldest first. */
const lanes = new Map<string, (() => void)[]>();
let pumpScheduled = false;

/**
 * A turn of the event loop for the next slice of long work, fair between
 * organizations (ADR 0046): work charged to no one resumes at the next
 * iteration, as after `setImmediate`; an organization's sliced work resumes
 * one slice per iteration whatever number of its operations are under way.
 * Three of one tenant's large reads at once then hold the loop between two
 * of another tenant's callbacks for one slice, not three.
 */
export function nextTurn(): Promise<void> {
  const owner = ownerOfWork();
  if (owner === undefined) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const lane = lanes.get(owner);
    if (lane) lane.push(resolve);
    else lanes.set(owner, [resolve]);
    if (!pumpScheduled) {
      pumpScheduled = true;
      setImmediate(resumeOnePerOrganization);
    }
  });
}

function resumeOnePerOrganization(): void {
  for (const [owner, lane] of lanes) {
    const next = lane.shift()!;
    if (lane.length === 0) lanes.delete(owner);
    next();
  }
  // The slices resumed run once this callback returns; those that come back wait for the next iteration.
  pumpScheduled = lanes.size > 0;
  if (pumpScheduled) setImmediate(resumeOnePerOrganization);
}
