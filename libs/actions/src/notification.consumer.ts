import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { EventMetadata } from '#des/event-store';
import { DeferTo, type JobContext, type JobInfo, type Jobs } from '#des/jobs';
import {
  CommandExecutor,
  CONFIG,
  type Config,
  JOBS,
  Metrics,
  type QueueConsumer,
  READ_STORE,
  ServiceKey,
  TENANT_LIMITS,
  type TenantLimitsSource,
} from '#des/platform';
import type { ReadStore } from '#des/read-store';
import { ChangeDelivery } from './action.commands';
import { CircuitBreaker } from './circuit-breaker';
import { actionsDecider, actionsStream } from './action.decider';
import { DELIVERIES } from './actions.projection';
import { deliveryDecider, deliveryStream } from './delivery.decider';
import { slackMessage } from './notices';
import { type DeliveryJob, deliveryJob, NOTIFICATIONS_QUEUE } from './notification-dispatch.reaction';
import { actionSecret, signature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signing';
import { postNotification } from './webhook-post';

const METADATA: EventMetadata = { actor: { kind: 'system', name: 'notifications' } };

/**
 * Delivers notifications: signs the exact body with the action's secret
 * (timestamp included), POSTs it with a time limit, and records the outcome
 * in the delivery's stream. A failure is thrown so the queue tries again with
 * back-off and jitter; the last one dead-letters the delivery. The state is
 * read first, so a delivery recorded as delivered is never sent again.
 * Each organization runs at most its `deliveryConcurrency` at once, and a
 * target that keeps failing is put behind a circuit breaker (per organization
 * and target origin): while open, a try is not made and not recorded (no
 * attempt spent, no event for the shared log to project): the job comes back
 * when the circuit half-opens. A delivery still refused after waiting a
 * cooldown per attempt it has (as long as its refused tries used to take) is
 * dead-lettered, once.
 */
@Injectable()
export class NotificationConsumer implements QueueConsumer {
  readonly queue = NOTIFICATIONS_QUEUE;
  readonly concurrency = 16;
  private readonly logger = new Logger('notifications');
  private readonly breaker: CircuitBreaker;

  constructor(
    private readonly commands: CommandBus,
    private readonly executor: CommandExecutor,
    private readonly signingKey: ServiceKey,
    private readonly metrics: Metrics,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(JOBS) private readonly jobs: Jobs,
    @Inject(TENANT_LIMITS) private readonly limits: TenantLimitsSource,
  ) {
    this.breaker = new CircuitBreaker({
      failures: config.actions.breakerFailures,
      cooldownMs: config.actions.breakerCooldownMs,
      trialMs: config.actions.timeoutMs,
    });
  }

  async groupConcurrency(org: string): Promise<number> {
    return (await this.limits.limitsFor(org)).deliveryConcurrency;
  }

  async handle(job: JobContext): Promise<unknown> {
    const { org, id, round } = job.data as DeliveryJob;
    const { state } = await this.executor.load(deliveryStream(org, id), deliveryDecider);
    const scheduled = state.scheduled;
    if (!scheduled) throw new Error(`delivery ${id} is not in the log`);
    if (state.round !== round || state.status !== 'pending') return `already ${state.status}`;
    const last = job.attempt >= this.config.actions.attempts;
    const action = (await this.executor.load(actionsStream(org), actionsDecider)).state.actions[
      scheduled.action
    ];
    if (!action) {
      await this.record(org, {
        id,
        round,
        attempt: job.attempt,
        ok: false,
        error: 'the action was deleted',
        last: true,
      });
      return 'action deleted';
    }
    const target = scheduled.target;
    const circuit = `${org} ${originOf(target.webhook)}`;
    const admission = this.breaker.admit(circuit, Date.now());
    if (!admission.go) {
      // Nothing was tried: no attempt spent, nothing recorded, until the circuit lets a try through.
      const waitMs = this.config.actions.attempts * this.config.actions.breakerCooldownMs;
      if (Date.now() < job.enqueuedAt + waitMs) throw new DeferTo(admission.retryAt, admission.reason);
      const error = `${admission.reason}; given up after waiting ${Math.round(waitMs / 1000)} s for it to close`;
      await this.record(org, { id, round, attempt: job.attempt, ok: false, error, last: true });
      return 'circuit open: dead-lettered';
    }
    const body = JSON.stringify(
      target.type === 'SLACK' ? slackMessage(scheduled.payload) : scheduled.payload,
    );
    const timestamp = Math.floor(Date.now() / 1000);
    const secret = actionSecret(this.signingKey.get(), org, action.number, action.secretId);
    const started = performance.now();
    const outcome = await postNotification(
      target.webhook,
      body,
      {
        'Content-Type': 'application/json',
        'User-Agent': 'delivery-evidence-service/actions',
        [SIGNATURE_HEADER]: signature(secret, timestamp, body),
        [TIMESTAMP_HEADER]: String(timestamp),
        'X-DES-Delivery': id,
        'X-DES-Event': String(scheduled.payload.event_type),
      },
      { timeoutMs: this.config.actions.timeoutMs, allowPrivate: this.config.actions.allowPrivateTargets },
    );
    const durationMs = Math.round(performance.now() - started);
    this.breaker.record(circuit, !targetFailing(outcome.statusCode), Date.now());
    this.metrics.notificationLatency.observe({ target: target.type }, durationMs / 1000);
    await this.record(org, {
      id,
      round,
      attempt: job.attempt,
      ok: outcome.ok,
      statusCode: outcome.statusCode,
      error: outcome.error,
      durationMs,
      last,
    });
    if (!outcome.ok) throw new Error(outcome.error);
    return 'delivered';
  }

  /** The queue gave the job up (attempts used up, or stalled too often). */
  async deadLetter(job: JobInfo): Promise<void> {
    const { org, id, round } = job.data as DeliveryJob;
    const done = await this.commands.execute(
      new ChangeDelivery(
        org,
        { kind: 'dead_letter', id, round, error: job.failedReason ?? 'given up by the queue' },
        { ...METADATA, org },
        { awaitReadModels: false },
      ),
    );
    if (done.events.length) this.countOutcome('dead_lettered', 'unknown');
  }

  /** At start: deliveries the log has as pending are enqueued again (an embedded queue forgets them on restart). */
  async recover(): Promise<void> {
    const pending = await this.reads.collection(DELIVERIES).find({ status: 'pending' });
    for (const d of pending) {
      await this.jobs.enqueue(
        ...deliveryJob(
          { org: d.org as string, id: d.id as string, round: d.round as number },
          this.config.actions,
        ),
      );
    }
    if (pending.length) this.logger.log(`enqueued ${pending.length} pending notification(s) again`);
  }

  private async record(
    org: string,
    attempt: {
      id: string;
      round: number;
      attempt: number;
      ok: boolean;
      statusCode?: number | null;
      error?: string;
      durationMs?: number;
      last: boolean;
    },
  ): Promise<void> {
    const done = await this.commands.execute(
      new ChangeDelivery(
        org,
        {
          kind: 'record_attempt',
          id: attempt.id,
          round: attempt.round,
          attempt: attempt.attempt,
          ok: attempt.ok,
          statusCode: attempt.statusCode ?? null,
          error: attempt.error,
          durationMs: attempt.durationMs ?? 0,
          last: attempt.last,
        },
        { ...METADATA, org },
        // The job holds its slot until the read models have its outcome: an organization's
        // deliveries feed the shared projector no faster than it applies them (at most its cap).
        { awaitReadModels: true },
      ),
    );
    const event = done.events[0];
    if (!event) return;
    const target = (done.state.scheduled?.target.type ?? 'unknown') as string;
    if (event.type === 'notification_delivered') this.countOutcome('delivered', target);
    else if (event.type === 'notification_failed')
      this.countOutcome(event.data.dead_lettered ? 'dead_lettered' : 'failed', target);
  }

  private countOutcome(outcome: 'delivered' | 'failed' | 'dead_lettered', target: string): void {
    this.metrics.notificationDeliveries.inc({ target, outcome });
    if (outcome === 'dead_lettered') this.metrics.notificationDeadLetters.inc();
  }
}

/** What the breaker counts against a target: no answer, a connection error, 5xx, 429. */
const targetFailing = (status: number | null) => status === null || status >= 500 || status === 429;

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
