/**
 * Fair turns over groups (organizations) with a cap per group under a total
 * cap: each group's items wait in order; the next item started is the head of
 * the group under its cap with the fewest running, round-robin among equals.
 * Pure, synchronous state.
 */
export class FairScheduler<T> {
  private readonly waiting = new Map<string, T[]>();
  private readonly runningIn = new Map<string, number>();
  /** Groups with waiting items, in their turn order. */
  private ring: string[] = [];
  private runningTotal = 0;
  private waitingTotal = 0;

  /**
   * `total`: items that may run at once in all; `capOf(group)`: in that group
   * (0: no cap of its own; undefined: not known yet, so none of it starts).
   */
  constructor(
    public total: number,
    private readonly capOf: (group: string) => number | undefined,
  ) {}

  push(group: string, item: T): void {
    let items = this.waiting.get(group);
    if (!items) {
      items = [];
      this.waiting.set(group, items);
      this.ring.push(group);
    }
    items.push(item);
    this.waitingTotal++;
  }

  /**
   * Starts the next item fairly, if one may start now: from the group, under
   * its cap, with the fewest items running, the earliest in turn among equals.
   * The caller calls `finish(group)` when it ends.
   */
  next(): { group: string; item: T } | undefined {
    if (this.runningTotal >= this.total) return undefined;
    let chosen = -1;
    for (let i = 0; i < this.ring.length; i++) {
      const group = this.ring[i];
      if (!this.underCap(group)) continue;
      if (chosen < 0 || this.running(group) < this.running(this.ring[chosen])) chosen = i;
    }
    if (chosen < 0) return undefined;
    const group = this.ring[chosen];
    const items = this.waiting.get(group)!;
    const item = items.shift()!;
    this.waitingTotal--;
    this.ring.splice(chosen, 1);
    if (items.length > 0) this.ring.push(group);
    else this.waiting.delete(group);
    this.runningIn.set(group, this.running(group) + 1);
    this.runningTotal++;
    return { group, item };
  }

  /** Counts an item as running that started without waiting here (it must also be `finish`ed). */
  tryStart(group: string): boolean {
    if (this.runningTotal >= this.total || !this.underCap(group)) return false;
    this.runningIn.set(group, this.running(group) + 1);
    this.runningTotal++;
    return true;
  }

  finish(group: string): void {
    const n = this.running(group) - 1;
    if (n > 0) this.runningIn.set(group, n);
    else this.runningIn.delete(group);
    this.runningTotal--;
  }

  running(group: string): number {
    return this.runningIn.get(group) ?? 0;
  }

  waitingIn(group: string): number {
    return this.waiting.get(group)?.length ?? 0;
  }

  get size(): { running: number; waiting: number } {
    return { running: this.runningTotal, waiting: this.waitingTotal };
  }

  /** Takes every waiting item out (at shutdown). */
  drain(): T[] {
    const items = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.ring = [];
    this.waitingTotal = 0;
    return items;
  }

  private underCap(group: string): boolean {
    const cap = this.capOf(group);
    return cap !== undefined && (cap <= 0 || this.running(group) < cap);
  }
}
