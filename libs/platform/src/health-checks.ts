import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { EventStore } from '#des/event-store';
import type { Jobs } from '#des/jobs';
import type { ProjectionFailure } from '#des/projections';
import type { ReadStore } from '#des/read-store';
import { ApiError } from './api-error';
import { Metrics } from './metrics';
import { PlatformRuntime } from './platform-runtime';
import { ShutdownState } from './shutdown-state';
import { StorageHealth } from './storage-health';
import { EVENT_STORE, JOBS, READ_STORE } from './tokens';
import { withTimeout } from './with-timeout';
import { CONFIG } from './tokens';
import type { Config } from './config';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Registry } from 'prom-client';

const CHECK_TIMEOUT_MS = 2000;

const notReady = (errors: Record<string, string>) =>
  new ApiError(503, 'Service not ready', errors, { 'Retry-After': '5' });

/**
 * Readiness and metrics of this process, whatever its role: the API serves
 * them on its port, worker and projector processes on `DES_OPS_PORT`.
 */
@Injectable()
export class HealthChecks {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(JOBS) private readonly jobs: Jobs,
    private readonly metrics: Metrics,
    private readonly runtime: PlatformRuntime,
    private readonly shutdown: ShutdownState,
    private readonly storage: StorageHealth,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /** The readiness body, or an ApiError 503 naming what is not ready. */
  async ready(): Promise<unknown> {
    if (this.shutdown.draining) throw notReady({ shutdown: 'the process is stopping' });
    try {
      return await this.health.check([
        () => this.probe(`event_store (${this.events.kind})`, () => this.events.ping()),
        () => this.probe(`read_store (${this.reads.kind})`, () => this.reads.ping()),
        () => this.probe(`jobs (${this.jobs.kind})`, () => this.jobs.ping()),
        () => this.dataDirectory(),
        () => this.projections(),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const details = (error.getResponse() as { error?: Record<string, { message?: string }> }).error ?? {};
      const errors = Object.fromEntries(Object.entries(details).map(([k, v]) => [k, v.message ?? 'down']));
      throw notReady(errors);
    }
  }

  /**
   * The Prometheus text of this process's metrics for a caller presenting
   * `authorization`: with `DES_METRICS_TOKEN` set, only its bearer gets them
   * (all of them; 401 otherwise); unset, anyone gets them but those labelled
   * by organization, which name every tenant (ADR 0037).
   */
  async prometheus(authorization: string | undefined): Promise<{ contentType: string; text: string }> {
    const token = this.config.metricsToken;
    if (token !== undefined && !bearerOf(authorization, token)) throw metricsUnauthorized();
    const position = this.runtime.appliedPosition;
    if (position !== undefined) this.metrics.projectorPosition.set(position);
    const registry = token !== undefined ? this.metrics.registry : withoutTenants(this.metrics.registry);
    return { contentType: registry.contentType, text: await registry.metrics() };
  }

  private async probe(key: string, check: () => Promise<void>) {
    const session = this.indicator.check(key);
    try {
      await withTimeout(check(), CHECK_TIMEOUT_MS);
      return session.up();
    } catch (error) {
      return session.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }

  /** A full or failing disk under the data directory, until a write there succeeds again. */
  private dataDirectory(): HealthIndicatorResult {
    const fault = this.storage.fault;
    if (!fault) return {};
    return this.indicator.check('data_directory').down({ message: fault });
  }

  /**
   * Each projection stopped by an event it cannot apply, by name. When the
   * read store cannot say, nothing is added: its own probe names the cause.
   */
  private async projections(): Promise<HealthIndicatorResult> {
    let failed: ProjectionFailure[];
    try {
      failed = await withTimeout(this.runtime.failedProjections(), CHECK_TIMEOUT_MS);
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
}

/** A registry of the same metrics but those with an `org` label. */
function withoutTenants(all: Registry): Registry {
  const view = new Registry();
  for (const metric of all.getMetricsAsArray() as unknown as Parameters<Registry['registerMetric']>[0][])
    if (!(metric as { labelNames?: readonly string[] }).labelNames?.includes('org'))
      view.registerMetric(metric);
  return view;
}

function bearerOf(authorization: string | undefined, token: string): boolean {
  const [scheme, given, ...rest] = (authorization ?? '').trim().split(/\s+/);
  if (!/^bearer$/i.test(scheme ?? '') || !given || rest.length > 0) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

function metricsUnauthorized(): ApiError {
  return new ApiError(401, 'Invalid or missing metrics token', null, {
    'WWW-Authenticate': 'Bearer realm="metrics"',
  });
}
