import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Metrics, TenantSources, TokenBuckets, tooManyRequests } from '#des/platform';
import type { AuthenticatedRequest } from './auth.guard';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * An organization's writes per second: a token bucket per organization in
 * this process (`writesPerSecond` refill, `writeBurst` capacity) over its
 * writes to its own routes, checked once the caller is authenticated (it runs
 * after AuthGuard). Past it: 429 with the Retry-After the bucket needs.
 */
@Injectable()
export class WriteRateGuard implements CanActivate {
  private readonly buckets = new TokenBuckets();

  constructor(
    private readonly tenants: TenantSources,
    private readonly metrics: Metrics,
  ) {}

  /** Synchronous for reads (most requests): Nest awaits a guard only when it returns a promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // AuthGuard let through only a path whose `:org` is the caller's own.
    if (!req.principal || req.params?.org === undefined || !WRITES.has(req.method)) return true;
    return this.withinRate(req.principal.org);
  }

  private async withinRate(org: string): Promise<boolean> {
    const { writesPerSecond, writeBurst } = await this.tenants.limitsFor(org);
    if (writesPerSecond === 0) return true;
    // A burst of 0 holds one second of writes.
    const capacity = writeBurst > 0 ? writeBurst : Math.max(1, writesPerSecond);
    const take = this.buckets.take(org, writesPerSecond, capacity, performance.now());
    if (take.ok) return true;
    this.metrics.tenantRefusals.inc({ org, limit: 'writesPerSecond' });
    throw tooManyRequests(
      'writesPerSecond',
      `this organization may write ${writesPerSecond} times per second (bursts of ${capacity})`,
      take.retryAfterSeconds,
    );
  }
}
