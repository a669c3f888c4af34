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
   * Holds the write's `size` in the organization's room for a write about to be appended,
   * or refuses it (507). Call the answer once the read models count the write,
   * or it failed.
   */
  async reserve(org: string, size: () => number): Promise<() => void> {
    const { eventLogBytes: quota } = await this.tenants.limitsFor(org);
    if (quota === 0) return () => undefined;
    const bytes = size();
    const { eventLogBytes: used } = await this.tenants.usageOf(org);
    // Read after the awaits: concurrent writes of this process see each other's reservations.
    const pending = this.inFlight.get(org) ?? 0;
    if (bytes > roomUnder(quota, used + pending)) {
      this.metrics.tenantRefusals.inc({ org, limit: 'eventLogBytes' });
      throw quotaExceeded('eventLogBytes', quota);
    }
    this.inFlight.set(org, pending + bytes);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (this.inFlight.get(org) ?? 0) - bytes;
      if (left > 0) this.inFlight.set(org, left);
      else this.inFlight.delete(org);
    };
  }
}
