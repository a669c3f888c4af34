/**
 * Each group's concurrency cap, read through the worker's lookup (an
 * organization's limits) and kept a while, so the scheduler can decide
 * synchronously. A group not yet known is read first; a stale one is used
 * while it is read again.
 */
export class GroupCaps {
  private readonly known = new Map<string, { cap: number; at: number }>();
  private readonly reading = new Map<string, Promise<number>>();

  constructor(
    private readonly lookup: ((group: string) => number | Promise<number>) | undefined,
    private readonly fallback: number,
    private readonly ttlMs = 5000,
    private readonly now = () => Date.now(),
  ) {}

  /** The cap if known (0: none of its own); `undefined` until its first read ends. */
  peek(group: string): number | undefined {
    if (!this.lookup) return this.fallback;
    const entry = this.known.get(group);
    if (!entry || this.now() - entry.at > this.ttlMs) void this.load(group).catch(() => undefined);
    return entry?.cap;
  }

  /** Reads the cap (once at a time per group); a failed read keeps the last one, or the fallback. */
  load(group: string): Promise<number> {
    if (!this.lookup) return Promise.resolve(this.fallback);
    let pending = this.reading.get(group);
    if (!pending) {
      pending = Promise.resolve()
        .then(() => this.lookup!(group))
        .then(
          (cap) => cap,
          () => this.known.get(group)?.cap ?? this.fallback,
        )
        .then((cap) => {
          this.known.set(group, { cap, at: this.now() });
          return cap;
        })
        .finally(() => this.reading.delete(group));
      this.reading.set(group, pending);
    }
    return pending;
  }
}
