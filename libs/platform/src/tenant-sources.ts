import { Inject, Injectable } from '@nestjs/common';
import type { Config } from './config';
import { CONFIG } from './tokens';
import type { TenantLimits } from '#des/kernel';
import type { TenantLimitsSource, TenantUsage, TenantUsageSource } from './tenant-limits';

/**
 * Where `TENANT_LIMITS` and `TENANT_USAGE` resolve: the configured defaults
 * and nothing counted, until a feature that keeps per-organization limits and
 * usage (accounts) plugs its sources in at start. The platform stays free of
 * that feature; every consumer gets the plugged source, whoever injected first.
 */
@Injectable()
export class TenantSources implements TenantLimitsSource, TenantUsageSource {
  private limits: TenantLimitsSource;
  private usage: TenantUsageSource = { usageOf: async () => ({ eventLogBytes: 0, attachmentBytes: 0 }) };

  constructor(@Inject(CONFIG) config: Config) {
    this.limits = { limitsFor: async () => config.tenantLimits };
  }

  plug(sources: { limits?: TenantLimitsSource; usage?: TenantUsageSource }): void {
    if (sources.limits) this.limits = sources.limits;
    if (sources.usage) this.usage = sources.usage;
  }

  limitsFor(org: string): Promise<TenantLimits> {
    return this.limits.limitsFor(org);
  }

  usageOf(org: string): Promise<TenantUsage> {
    return this.usage.usageOf(org);
  }
}
