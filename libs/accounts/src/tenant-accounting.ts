import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { TenantLimits } from '#des/kernel';
import {
  CONFIG,
  Config,
  Metrics,
  READ_STORE,
  TenantLimitsSource,
  TenantSources,
  TenantUsage,
  TenantUsageSource,
} from '#des/platform';
import type { ReadStore } from '#des/read-store';
import { ORGANIZATIONS } from './accounts.projection';
import type { LimitOverrides } from './organization.decider';
import { TENANT_USAGE_COLLECTION, TenantUsageDoc } from './tenant-usage.projection';

/** An organization's effective limits: its overrides over the configured defaults. */
export const effectiveLimits = (defaults: TenantLimits, overrides: LimitOverrides | undefined): TenantLimits => ({
  ...defaults,
  ...overrides,
});

/**
 * Every organization's limits and usage, from the read models (so an
 * operator's override reaches every process through the log), plugged into
 * the platform's `TENANT_LIMITS` and `TENANT_USAGE` at start.
 */
@Injectable()
export class TenantAccounting implements TenantLimitsSource, TenantUsageSource, OnModuleInit {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONFIG) private readonly config: Config,
    private readonly sources: TenantSources,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.sources.plug({ limits: this, usage: this });
    this.metrics.tenantUsageReport = () => this.everyUsage();
  }

  async limitsFor(org: string): Promise<TenantLimits> {
    const doc = await this.reads.collection(ORGANIZATIONS).findOne({ _id: org });
    return effectiveLimits(this.config.tenantLimits, doc?.limits as LimitOverrides | undefined);
  }

  async usageOf(org: string): Promise<TenantUsage> {
    const doc = await this.reads.collection<TenantUsageDoc>(TENANT_USAGE_COLLECTION).findOne({ _id: org });
    return { eventLogBytes: doc?.event_log_bytes ?? 0, attachmentBytes: doc?.attachment_bytes ?? 0 };
  }

  private async everyUsage() {
    const docs = await this.reads.collection<TenantUsageDoc>(TENANT_USAGE_COLLECTION).find({});
    return docs.map((d) => ({
      org: d._id,
      eventLogBytes: d.event_log_bytes ?? 0,
      attachmentBytes: d.attachment_bytes ?? 0,
    }));
  }
}
