import { randomUUID } from 'node:crypto';
import { DuplicateKeyError, ReadStore } from '#des/read-store';

/**
 * A lease in the read store: exactly one projector instance applies the
 * projections at a time; another takes over when the holder stops renewing.
 */
export class Lease {
  readonly owner = randomUUID();

  constructor(
    private readonly store: ReadStore,
    private readonly name: string,
    private readonly ttlMs = 10_000,
  ) {}

  /** Takes or renews the lease; false when another live owner holds it. */
  async acquire(now = Date.now()): Promise<boolean> {
    try {
      const r = await this.store
        .collection('_leases')
        .updateOne(
          { _id: this.name, $or: [{ owner: this.owner }, { expires_at: { $lt: now } }] },
          { $set: { owner: this.owner, expires_at: now + this.ttlMs } },
          { upsert: true },
        );
      return r.matched > 0 || r.upserted;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  async release(): Promise<void> {
    await this.store
      .collection('_leases')
      .updateOne({ _id: this.name, owner: this.owner }, { $set: { expires_at: 0 } });
  }
}
