import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { EventStore } from '#des/event-store';
import { microsToSeconds } from '#des/event-store';
import type { JobContext, JobInfo, Jobs } from '#des/jobs';
import { CommandBus } from '@nestjs/cqrs';
import {
  EVENT_STORE,
  JOBS,
  Metrics,
  PROJECTION_PROGRESS,
  READ_STORE,
  TENANT_LIMITS,
  type TenantLimitsSource,
} from '#des/platform';
import type { ProjectionProgress } from '#des/projections';
import type { ReadStore } from '#des/read-store';
import { EVALUATIONS } from './evaluations.projection';
import { OpaCompiler, PolicyError, PolicyEvaluator } from '#des/policy-engine';
import { TrailTimeMachine, trailAsShown, TrailView } from '#des/trails';
import type { FlowTemplate } from '#des/flows';
import { ChangeEvaluation } from './evaluation.commands';
import { EvaluationCommand, EvaluationEvent, evaluationStream } from './evaluation.decider';
import { EVALUATION_ATTEMPTS, EVALUATIONS_QUEUE, evaluationJob } from './evaluation-job';

const notRecorded = (id: string) => `evaluation ${id} is not recorded`;
const SERVICE_FAILURE = 'The evaluation failed on the service side.';
/** How long recovery at start waits for the read models to catch up with the log. */
const RECOVERY_WAIT_MS = 10 * 60_000;
export const POLICY_COMPILER = Symbol('POLICY_COMPILER');
export const POLICY_EVALUATOR = Symbol('POLICY_EVALUATOR');

/** A trail as a policy sees it (`GET /trails/…` at the instant), as JSON text memoised per fold. */
const inputJson = new WeakMap<TrailView, { template: FlowTemplate | null; json: string }>();
function policyInputJson(view: TrailView, template: FlowTemplate | null): string {
  const memo = inputJson.get(view);
  if (memo?.template === template) return memo.json;
  const json = JSON.stringify(trailAsShown(view, template));
  inputJson.set(view, { template, json });
  return json;
}

export interface EvaluationJob {
  org: string;
  id: string;
}

/**
 * Runs an evaluation: every trail resolved at the pinned instant (time
 * travel), the policy compiled (cached) and evaluated in a stoppable worker,
 * and the outcome recorded once.
 */
@Injectable()
export class EvaluationConsumer implements OnModuleDestroy {
  readonly queue = EVALUATIONS_QUEUE;
  readonly concurrency = 2;
  private readonly logger = new Logger('evaluations');

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly commands: CommandBus,
    @Inject(POLICY_COMPILER) private readonly compiler: OpaCompiler,
    @Inject(POLICY_EVALUATOR) private readonly evaluator: PolicyEvaluator,
    private readonly timeMachine: TrailTimeMachine,
    private readonly metrics: Metrics,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(JOBS) private readonly jobs: Jobs,
    @Inject(PROJECTION_PROGRESS) private readonly progress: ProjectionProgress,
    @Inject(TENANT_LIMITS) private readonly limits: TenantLimitsSource,
  ) {}

  /** Each organization runs at most its `evaluationConcurrency` at once, under the queue's. */
  async groupConcurrency(org: string): Promise<number> {
    return (await this.limits.limitsFor(org)).evaluationConcurrency;
  }

  async onModuleDestroy(): Promise<void> {
    await this.evaluator.close();
  }

  async handle(job: JobContext): Promise<unknown> {
    const { org, id } = job.data as EvaluationJob;
    // Enqueued once the request is in the log (evaluation-dispatch), or again by recovery.
    const history = await this.events.readStream(evaluationStream(org, id));
    const requested = history.find((e) => e.type === 'evaluation_requested');
    if (!requested) throw new Error(notRecorded(id));
    if (history.length > 1) return 'already finished';
    const data = (requested as unknown as Extract<EvaluationEvent, { type: 'evaluation_requested' }>).data;
    try {
      const at = microsToSeconds(data.recorded_at);
      const refs = data.context.trails;
      const pasts = await this.timeMachine.atAll(org, refs, at, data.recorded_position);
      const trails = pasts.map((past, i) => {
        if (!past.view)
          throw new PolicyError(
            'service_error',
            `trail ${refs[i].flow}/${refs[i].trail} vanished at the pinned instant`,
          );
        return policyInputJson(past.view, past.template);
      });
      // Assembled from each trail's JSON text, kept with its fold: no input is serialised twice.
      const input = `{"trails":[${trails.join(',')}]${trails.length === 1 ? `,"trail":${trails[0]}` : ''}}`;
      const compiled = await this.compiler.compile(data.policy.files);
      const result = await this.evaluator.evaluateJson(compiled, input, { params: data.params });
      await this.record(org, id, { kind: 'complete', id, result });
      return result;
    } catch (error) {
      if (error instanceof PolicyError && error.kind !== 'service_error') {
        await this.record(org, id, { kind: 'fail', id, error: { kind: error.kind, message: error.message } });
        return error.kind;
      }
      const message = error instanceof Error ? error.message : String(error);
      if (job.attempt < EVALUATION_ATTEMPTS) throw error; // retried with back-off first
      this.logger.error(`evaluation ${id} failed on our side: ${message}`);
      await this.record(org, id, {
        kind: 'fail',
        id,
        error: { kind: 'service_error', message: SERVICE_FAILURE },
      });
      return 'service_error';
    }
  }

  /**
   * The queue gave the job up (attempts used up, or it stalled more often
   * than allowed: its workers kept dying). Recorded as `service_error`; an
   * evaluation that is not pending (never recorded, or finished) records nothing.
   */
  async deadLetter(job: JobInfo): Promise<void> {
    const { org, id } = job.data as EvaluationJob;
    // A job for an evaluation that is not in the log has nothing to fail.
    if (job.failedReason === notRecorded(id)) return;
    this.logger.error(`evaluation ${id}: its job was given up (${job.failedReason ?? 'no reason'})`);
    await this.record(org, id, {
      kind: 'fail',
      id,
      error: { kind: 'service_error', message: SERVICE_FAILURE },
    });
  }

  /** Every evaluation still pending gets its job again (an embedded queue is empty after a restart). */
  async recover(): Promise<void> {
    // The read models first reach the log head (at start they may still be catching up).
    const head = await this.events.head();
    if (!(await this.progress.waitFor(head.position, RECOVERY_WAIT_MS)))
      throw new Error(`read models did not reach log position ${head.position}`);
    const pending = await this.reads.collection(EVALUATIONS).find({ status: 'pending' });
    for (const doc of pending) await this.jobs.enqueue(...evaluationJob(doc.org as string, doc.id as string));
    if (pending.length) this.logger.log(`re-enqueued ${pending.length} pending evaluation(s)`);
  }

  private async record(org: string, id: string, command: EvaluationCommand): Promise<void> {
    const executed = await this.commands.execute(
      new ChangeEvaluation(org, id, command, {
        org,
        actor: { kind: 'system', name: 'evaluator' },
        causation_id: id,
      }),
    );
    if (executed.events.length > 0)
      this.metrics.evaluationsFinished.inc({
        outcome: command.kind === 'fail' ? command.error.kind : 'completed',
      });
  }
}
