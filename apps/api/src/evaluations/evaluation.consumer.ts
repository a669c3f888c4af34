import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EventStore } from '../../../../libs/event-store/src';
import { microsToSeconds } from '../../../../libs/event-store/src/microseconds';
import type { JobContext } from '../../../../libs/jobs/src';
import { CommandExecutor, EVENT_STORE } from '../../../../libs/platform/src';
import { evaluatePolicy, OpaCompiler, PolicyError } from '../../../../libs/policy-engine/src';
import { trailAt } from '../trails/trail-at';
import { trailCompliance } from '../trails/trail.view';
import { evaluationDecider, EvaluationEvent, evaluationStream } from './evaluation.decider';

export const EVALUATIONS_QUEUE = 'evaluations';
export const EVALUATION_ATTEMPTS = 3;
export const POLICY_COMPILER = Symbol('POLICY_COMPILER');
export const POLICY_BUDGET_MS = Symbol('POLICY_BUDGET_MS');

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
export class EvaluationConsumer {
  readonly queue = EVALUATIONS_QUEUE;
  readonly concurrency = 2;
  private readonly logger = new Logger('evaluations');

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly executor: CommandExecutor,
    @Inject(POLICY_COMPILER) private readonly compiler: OpaCompiler,
    @Inject(POLICY_BUDGET_MS) private readonly budgetMs: number,
  ) {}

  async handle(job: JobContext): Promise<unknown> {
    const { org, id } = job.data as EvaluationJob;
    const history = await this.events.readStream(evaluationStream(org, id));
    const requested = history.find((e) => e.type === 'evaluation_requested');
    // The job is enqueued before the request is recorded (so an outage records nothing): wait for it.
    if (!requested) throw new Error(`evaluation ${id} is not recorded (yet)`);
    if (history.length > 1) return 'already finished';
    const data = (requested as unknown as Extract<EvaluationEvent, { type: 'evaluation_requested' }>).data;
    try {
      const at = microsToSeconds(data.recorded_at);
      const trails = [];
      for (const ref of data.context.trails) {
        const past = await trailAt(this.events, org, ref.flow, ref.trail, at);
        if (!past.view)
          throw new PolicyError(
            'service_error',
            `trail ${ref.flow}/${ref.trail} vanished at the pinned instant`,
          );
        trails.push({ ...past.view, compliance_status: trailCompliance(past.view, past.template) });
      }
      const input = trails.length === 1 ? { trails, trail: trails[0] } : { trails };
      const compiled = await this.compiler.compile(data.policy.files);
      const result = await evaluatePolicy(compiled, input, { params: data.params }, this.budgetMs);
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
        error: { kind: 'service_error', message: 'The evaluation failed on the service side.' },
      });
      return 'service_error';
    }
  }

  private async record(
    org: string,
    id: string,
    command: Parameters<typeof evaluationDecider.decide>[0],
  ): Promise<void> {
    await this.executor.execute(evaluationStream(org, id), evaluationDecider, command, {
      org,
      actor: { kind: 'system', name: 'evaluator' },
      causation_id: id,
    });
  }
}
