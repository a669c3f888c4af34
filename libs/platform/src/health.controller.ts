import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController, ApiOperation } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from 'express';
import { Res } from '@nestjs/common';
import type { EventStore } from '#des/event-store';
import type { Jobs } from '#des/jobs';
import type { ProjectionFailure } from '#des/projections';
import type { ReadStore } from '#des/read-store';
import { ApiError } from './api-error';
import { Public } from './privileges';
import { Metrics } from './metrics';
import { PlatformRuntime } from './platform-runtime';
import { EVENT_STORE, JOBS, READ_STORE } from './tokens';

const CHECK_TIMEOUT_MS = 2000;

/** Probes and metrics: no authentication, served at the root and under /api/v2. */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(JOBS) private readonly jobs: Jobs,
    private readonly metrics: Metrics,
    private readonly runtime: PlatformRuntime,
  ) {}

  @Get('health/live')
  @ApiOperation({ operationId: 'getLiveness', summary: 'Check that the service is alive' })
  live() {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Check that the service and its stores are ready to serve',
  })
  async ready() {
    try {
      return await this.health.check([
        () => this.probe(`event_store (${this.events.kind})`, () => this.events.ping()),
        () => this.probe(`read_store (${this.reads.kind})`, () => this.reads.ping()),
        () => this.probe(`jobs (${this.jobs.kind})`, () => this.jobs.ping()),
        () => this.projections(),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const details = (error.getResponse() as { error?: Record<string, { message?: string }> }).error ?? {};
      const errors = Object.fromEntries(Object.entries(details).map(([k, v]) => [k, v.message ?? 'down']));
      throw new ApiError(503, 'Service not ready', errors, { 'Retry-After': '5' });
    }
  }

  private async probe(key: string, check: () => Promise<void>) {
    const session = this.indicator.check(key);
    try {
      await withTimeout(check());
      return session.up();
    } catch (error) {
      return session.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * Each projection stopped by an event it cannot apply, by name. When the
   * read store cannot say, nothing is added: its own probe names the cause.
   */
  private async projections(): Promise<HealthIndicatorResult> {
    let failed: ProjectionFailure[];
    try {
      failed = await withTimeout(this.runtime.failedProjections());
    } catch {
      return {};
    }
    if (failed.length === 0) return this.indicator.check('projections').up();
    return Object.assign(
      {},
      ...failed.map((f) =>
        this.indicator.check(`projection ${f.projection}`).down({
          message: `stopped at log position ${f.position}${f.eventType ? ` (${f.eventType})` : ''}: it cannot apply that event; a restart or a rebuild retries it`,
        }),
      ),
    ) as HealthIndicatorResult;
  }

  @Get('metrics')
  @ApiOperation({ operationId: 'getMetrics', summary: 'Read the Prometheus metrics' })
  async prometheus(@Res() res: Response) {
    const position = this.runtime.appliedPosition;
    if (position !== undefined) this.metrics.projectorPosition.set(position);
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    res.send(await this.metrics.registry.metrics());
  }
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}
