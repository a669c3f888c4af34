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

  constructor(private readonly budgetMs = 10) {}

  get due(): boolean {
    return performance.now() - this.since >= this.budgetMs;
  }

  async turn(): Promise<void> {
    if (!this.due) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}
