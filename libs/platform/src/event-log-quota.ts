import { Injectable } from '@nestjs/common';
import { Metrics } from './metrics';
import { quotaExceeded, roomUnder } from './tenant-limits';
import { TenantSources } from './tenant-sources';

/**
 * An organization's event-log quota, checked before each of its writes is
 * appended: its stored bytes (counted from the log by a projection) plus the
 * writes this process has in flight, which the projection has not counted yet.
 */
@Injectable()
export class EventLogQuota {
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly tenants: TenantSources,
    private readonly metrics: Metrics,
  ) {}

  /**
   * The organization's room for a write about to be appended: `admit(bytes)`
   * holds the write's size (the store calls it once it has serialized the
   * write, before appending) or refuses it (507); `release()` once the read
   * models count the write, or it failed.
   */
  async room(org: string): Promise<QuotaRoom> {
    const { eventLogBytes: quota } = await this.tenants.limitsFor(org);
    if (quota === 0) return UNLIMITED_ROOM;
    const { eventLogBytes: used } = await this.tenants.usageOf(org);
    let held = 0;
    return {
      admit: (bytes) => {
        // Read after the awaits: concurrent writes of this process see each other's reservations.
        const pending = this.inFlight.get(org) ?? 0;
        if (bytes > roomUnder(quota, used + pending)) {
          this.metrics.tenantRefusals.inc({ org, limit: 'eventLogBytes' });
          throw quotaExceeded('eventLogBytes', quota);
        }
        this.inFlight.set(org, pending + bytes);
        held += bytes;
      },
      release: () => {
        if (held === 0) return;
        const left = (this.inFlight.get(org) ?? 0) - held;
        held = 0;
        if (left > 0) this.inFlight.set(org, left);
        else this.inFlight.delete(org);
      },
    };
  }
}

export interface QuotaRoom {
  admit(bytes: number): void;
  release(): void;
}

/** Room for any write: what an organization without a quota, and the service's own writes, get. */
export const UNLIMITED_ROOM: QuotaRoom = { admit: () => undefined, release: () => undefined };
