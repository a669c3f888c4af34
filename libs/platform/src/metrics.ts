import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of this process (served at /metrics). */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'des_http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly connectionsShed = new Counter({
    name: 'des_http_connections_shed_total',
    help: 'Connections closed at a connection cap (DES_HTTP_MAX_CONNECTIONS, _PER_ADDRESS), by cap and which: an idle one reclaimed, or the new one refused',
    labelNames: ['cap', 'closed'],
    registers: [this.registry],
  });
  readonly bodyBytesInFlight = new Gauge({
    name: 'des_http_body_bytes_in_flight',
    help: 'Bytes of JSON request bodies held while being read (DES_HTTP_BODY_BYTES_IN_FLIGHT caps them)',
    registers: [this.registry],
  });
  readonly eventsAppended = new Counter({
    name: 'des_events_appended_total',
    help: 'Events appended to the log by type',
    labelNames: ['type'],
    registers: [this.registry],
  });
  readonly appendConflicts = new Counter({
    name: 'des_append_conflicts_total',
    help: 'Appends refused for a stale expected revision (retried)',
    registers: [this.registry],
  });
  readonly resumedWrites = new Counter({
    name: 'des_resumed_writes_total',
    help: 'Writes an idempotent retry found already made by an earlier attempt whose process died (not written again)',
    registers: [this.registry],
  });
  readonly readYourWritesTimeouts = new Counter({
    name: 'des_read_your_writes_timeouts_total',
    help: 'Writes the read models did not show within the wait (answered 503, recorded: ADR 0045)',
    registers: [this.registry],
  });
  readonly projectionFailures = new Counter({
    name: 'des_projection_failures_total',
    help: 'Projections (and reactions) stopped by an event they cannot apply, until a restart or a rebuild retries it',
    labelNames: ['projection'],
    registers: [this.registry],
  });
  readonly projectorPosition = new Gauge({
    name: 'des_projector_position',
    help: 'Lowest log position applied by every projection in this process',
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: 'des_job_duration_seconds',
    help: 'Background job attempts by queue and outcome (completed, or failed and retried/dead-lettered)',
    labelNames: ['queue', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** Enqueue to the start of an attempt: how long jobs wait for a worker. */
  readonly jobWait = new Histogram({
    name: 'des_job_wait_seconds',
    help: 'Time from a job being queued to an attempt starting, by queue (a retry counts its back-off too)',
    labelNames: ['queue'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  /** Jobs by queue and state, read at each scrape (the jobs adapter of this process says). */
  queueReport: () => Promise<{ queue: string; state: string; count: number }[]> = async () => [];
  readonly queueDepth = new Gauge({
    name: 'des_queue_jobs',
    help: 'Jobs in each queue this process uses, by state (waiting, delayed, active, failed: dead-lettered)',
    labelNames: ['queue', 'state'],
    registers: [this.registry],
    collect: async () => {
      for (const d of await this.queueReport().catch(() => []))
        this.queueDepth.set({ queue: d.queue, state: d.state }, d.count);
    },
  });

  /** How far the read models are behind the log, read at each scrape. */
  projectorReport: () => Promise<{
    lagPositions: number;
    lagSeconds: number;
    checkpointAgeSeconds?: number;
  }> = async () => ({ lagPositions: 0, lagSeconds: 0 });
  readonly projectorLag = new Gauge({
    name: 'des_projector_lag_events',
    help: 'Log positions the read models are behind the log head (events on SQLite; bytes of log on KurrentDB)',
    registers: [this.registry],
    collect: async () => this.collectProjector(),
  });
  readonly projectorLagSeconds = new Gauge({
    name: 'des_projector_lag_seconds',
    help: 'Age of the oldest event the read models have not applied yet (0 when caught up)',
    registers: [this.registry],
  });
  readonly projectorCheckpointAge = new Gauge({
    name: 'des_projector_checkpoint_age_seconds',
    help: 'Projector processes: seconds since the projector last checkpointed a batch (grows while idle; alert on it with lag)',
    registers: [this.registry],
  });
  private async collectProjector(): Promise<void> {
    const r = await this.projectorReport().catch(() => undefined);
    if (!r) return;
    this.projectorLag.set(r.lagPositions);
    this.projectorLagSeconds.set(r.lagSeconds);
    if (r.checkpointAgeSeconds !== undefined) this.projectorCheckpointAge.set(r.checkpointAgeSeconds);
  }
  readonly ledgerIntegrationDelay = new Histogram({
    name: 'des_ledger_integration_delay_seconds',
    help: "From an event's commit to its leaf in its organization's transparency tree being kept (the sequencer's batches)",
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });

  readonly evaluationsFinished = new Counter({
    name: 'des_evaluations_finished_total',
    help: 'Evaluations finished, by outcome (completed, policy_error, timeout, service_error)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  readonly notificationDeliveries = new Counter({
    name: 'des_notification_deliveries_total',
    help: 'Action notification attempts, by target type and outcome (delivered, failed, dead_lettered)',
    labelNames: ['target', 'outcome'],
    registers: [this.registry],
  });
  readonly notificationLatency = new Histogram({
    name: 'des_notification_delivery_seconds',
    help: 'Duration of one notification attempt (request to response), by target type',
    labelNames: ['target'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly notificationDeadLetters = new Counter({
    name: 'des_notification_dead_letters_total',
    help: 'Notifications given up after their last try (redeliver them with the CLI)',
    registers: [this.registry],
  });

  readonly idempotentRequests = new Counter({
    name: 'des_idempotent_requests_total',
    help: 'Writes with an Idempotency-Key, by outcome (executed, replayed, refused, released)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  /**
   * Every organization's usage, read at each scrape; the feature that counts
   * usage from the log sets it (nothing is reported until then).
   */
  tenantUsageReport: () => Promise<{ org: string; eventLogBytes: number; attachmentBytes: number }[]> =
    async () => [];
  readonly tenantEventLogBytes = new Gauge({
    name: 'des_tenant_event_log_bytes',
    help: "Bytes of an organization's events in the log (counted against DES_ORG_EVENT_LOG_BYTES)",
    labelNames: ['org'],
    registers: [this.registry],
    collect: async () => {
      for (const u of await this.tenantUsageReport())
        this.tenantEventLogBytes.set({ org: u.org }, u.eventLogBytes);
    },
  });
  readonly tenantAttachmentBytes = new Gauge({
    name: 'des_tenant_attachment_bytes',
    help: "Bytes of the attachment files an organization's attestations name (counted against DES_ORG_ATTACHMENT_BYTES)",
    labelNames: ['org'],
    registers: [this.registry],
    collect: async () => {
      for (const u of await this.tenantUsageReport())
        this.tenantAttachmentBytes.set({ org: u.org }, u.attachmentBytes);
    },
  });
  readonly tenantRefusals = new Counter({
    name: 'des_tenant_refusals_total',
    help: "Requests refused for an organization's limit, by organization and limit (eventLogBytes, writesPerSecond, ...)",
    labelNames: ['org', 'limit'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'des_' });
  }
}
