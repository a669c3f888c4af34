import { Inject, Injectable } from '@nestjs/common';
import {
  CONFIG,
  type Config,
  READ_STORE,
  TENANT_LIMITS,
  type TenantLimitsSource,
  tooManyRequests,
} from '#des/platform';
import type { ReadStore } from '#des/read-store';
import { EVALUATIONS } from './evaluations.projection';

/**
 * Caps an organization's pending evaluations (requested and not finished):
 * counted from the read model of what the log records, so a restart counts
 * them again, plus the requests this process is admitting meanwhile (a
 * request counts until its evaluation is in the read model). Past the cap the
 * request is refused 429 before anything is queued or recorded.
 */
@Injectable()
export class PendingEvaluations {
  private readonly admitting = new Map<string, number>();

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(TENANT_LIMITS) private readonly limits: TenantLimitsSource,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async admit<T>(org: string, request: () => Promise<T>): Promise<T> {
    const alongside = this.admitting.get(org) ?? 0;
    this.admitting.set(org, alongside + 1);
    try {
      const limit = (await this.limits.limitsFor(org)).pendingEvaluations;
      if (limit > 0) {
        const pending =
          alongside + (await this.reads.collection(EVALUATIONS).count({ org, status: 'pending' }));
        if (pending >= limit)
          throw tooManyRequests(
            'pendingEvaluations',
            `this organization has ${pending} evaluations pending, at most ${limit}`,
            this.config.policyBudgetMs / 1000,
          );
      }
      return await request();
    } finally {
      const left = (this.admitting.get(org) ?? 1) - 1;
      if (left > 0) this.admitting.set(org, left);
      else this.admitting.delete(org);
    }
  }
}
