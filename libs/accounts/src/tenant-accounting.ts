import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
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
export const effectiveLimits = (
  defaults: TenantLimits,
  overrides: LimitOverrides | undefined,
): TenantLimits => ({
  ...defaults,
  ...overrides,
});

/**
 * How long an organization's limits are reused: every write and upload
 * checks them, and an operator's override is rare, so it reaches a process
 * within this (docs/limits.md), instead of costing each request a read.
 */
export const LIMITS_REUSED_MS = 1000;

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

  /** Concurrent asks for one organization share one read (`fetch` coalesces them). */
  private readonly limits = new LRUCache<string, TenantLimits>({
    max: 10_000,
    ttl: LIMITS_REUSED_MS,
    fetchMethod: async (org) => {
      const doc = await this.reads.collection(ORGANIZATIONS).findOne({ _id: org });
      return effectiveLimits(this.config.tenantLimits, doc?.limits as LimitOverrides | undefined);
    },
  });

  async limitsFor(org: string): Promise<TenantLimits> {
    return (await this.limits.fetch(org))!;
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
