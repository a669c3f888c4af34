import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Observable } from 'rxjs';
import { ApiError } from './api-error';
import { InFlight, type InFlightRefusal } from './in-flight';
import type { Config } from './config';
import { TENANT_LIMITS, type TenantLimitsSource, tooManyRequests } from './tenant-limits';
import { CONFIG } from './tokens';

/** Seconds a client refused for heavy answers in flight is asked to wait: about one bundle's time. */
export const HEAVY_RETRY_AFTER_SECONDS = 5;

/** Why a heavy operation was not admitted: its organization's cap, or the process's. */
export type HeavyRefusal = InFlightRefusal;

/** The heavy operations in flight in this process: per organization and in all, one each. */
export class HeavyOperationCounts {
  private readonly counts = new InFlight();

  of(org: string): number {
    return this.counts.of(org);
  }

  get inFlight(): number {
    return this.counts.of();
  }

  /** One more for `org`, unless it has `perOrg` already (0: no cap) or the process `total`. */
  enter(org: string, perOrg: number, total: number): HeavyRefusal | undefined {
    return this.counts.take(org, 1, perOrg, total);
  }

  leave(org: string): void {
    this.counts.give(org, 1);
  }
}

/**
 * Admits the answers that cost a process the most memory and time (evidence
 * bundles, PDFs, CSV exports): an organization may have `heavyOperations`
 * of them in flight in this process (429 past it), and the process
 * `DES_HEAVY_OPERATIONS` in all (503 past it), so one tenant cannot take
 * them all. A place is held until the answer is sent or its client leaves.
 */
@Injectable()
export class HeavyOperations {
  private readonly counts = new HeavyOperationCounts();

  constructor(
    @Inject(TENANT_LIMITS) private readonly limits: TenantLimitsSource,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /** Takes a place for `org` until `res` closes, or throws the refusal. */
  async admit(org: string, res: Response): Promise<void> {
    const perOrg = (await this.limits.limitsFor(org)).heavyOperations;
    const refused = this.counts.enter(org, perOrg, this.config.heavyOperations);
    if (refused === 'organization')
      throw tooManyRequests(
        'heavyOperations',
        `this organization already has ${perOrg} bundles, PDFs or CSV exports in progress`,
        HEAVY_RETRY_AFTER_SECONDS,
      );
    if (refused === 'process')
      throw new ApiError(
        503,
        `Service busy: too many bundles, PDFs or CSV exports in progress; retry after ${HEAVY_RETRY_AFTER_SECONDS} s`,
        {
          heavyOperations:
            'the service has as many bundles, PDFs or CSV exports in progress as it runs at once',
        },
        { 'Retry-After': String(HEAVY_RETRY_AFTER_SECONDS) },
      );
    let held = true;
    const release = () => {
      if (held) this.counts.leave(org);
      held = false;
    };
    res.once('close', release);
    // A client gone while its limits were read closed the answer already: nothing will close it again.
    if (res.destroyed || res.writableFinished || !res.socket || res.socket.destroyed) release();
  }

  /** What is in flight in this process now (for tests and metrics). */
  inFlight(org: string): { org: number; total: number } {
    return { org: this.counts.of(org), total: this.counts.inFlight };
  }
}

/** Admits a route's request as a heavy operation of the organization its `:org` names. */
@Injectable()
export class HeavyOperationInterceptor implements NestInterceptor {
  constructor(private readonly heavy: HeavyOperations) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    await this.heavy.admit(String(req.params.org), http.getResponse<Response>());
    return next.handle();
  }
}

/** Declares a heavy operation's refusal in the API document (GETs are otherwise never answered 429). */
export const ApiHeavyRefusal = () =>
  ApiResponse({
    status: 429,
    description:
      "Over the organization's heavy answers in flight (bundles, PDFs, CSV exports: `errors.heavyOperations`, docs/limits.md)",
    headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds' } },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
  });

/** Marks a route (with an `:org` parameter) as a heavy operation: capped per organization and per process. */
export const Heavy = () => applyDecorators(UseInterceptors(HeavyOperationInterceptor), ApiHeavyRefusal());
