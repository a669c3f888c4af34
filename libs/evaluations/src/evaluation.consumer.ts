import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { EventStore } from '#des/event-store';
import { microsToSeconds } from '#des/event-store';
import type { JobContext, JobInfo, Jobs } from '#des/jobs';
import { CommandBus } from '@nestjs/cqrs';
import {
  CONFIG,
  type Config,
  EVENT_STORE,
  JOBS,
  jsonPieces,
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
import {
  assemblePolicyInput,
  distinctTrails,
  inputTooLarge,
  policyInputBytes,
  timesInInput,
} from './policy-input';

const notRecorded = (id: string) => `evaluation ${id} is not recorded`;
const SERVICE_FAILURE = 'The evaluation failed on the service side.';
/** How long recovery at start waits for the read models to catch up with the log. */
const RECOVERY_WAIT_MS = 10 * 60_000;
export const POLICY_COMPILER = Symbol('POLICY_COMPILER');
export const POLICY_EVALUATOR = Symbol('POLICY_EVALUATOR');

/** Trail JSON up to this size is kept with its fold; a larger one is made again when asked (memory over CPU). */
const MEMO_MAX_CHARS = 1024 * 1024;
/** A trail as a policy sees it (`GET /trails/…` at the instant), as JSON text memoised per fold. */
const inputJson = new WeakMap<TrailView, { template: FlowTemplate | null; json: string }>();
/** The trail's text, or (past `roomChars`) how many characters were made before it was given up. */
function policyInputJson(view: TrailView, template: FlowTemplate | null, roomChars: number): string | number {
  const memo = inputJson.get(view);
  if (memo?.template === template) return memo.json.length <= roomChars ? memo.json : memo.json.length;
  // Made in pieces (an attestation each) and given up once past the room: a trail whose input
  // would pass the limit is refused without its whole text ever being made.
  const pieces: string[] = [];
  let chars = 0;
  for (const piece of jsonPieces(trailAsShown(view, template))) {
    chars += piece.length;
    if (chars > roomChars) return chars;
    pieces.push(piece);
  }
  const json = pieces.join('');
  if (json.length <= MEMO_MAX_CHARS) inputJson.set(view, { template, json });
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
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  private get budgets() {
    return this.config.evaluationBudgets;
  }

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
    if (history.some((e) => e.type === 'evaluation_completed' || e.type === 'evaluation_failed'))
      return 'already finished';
    const data = (requested as unknown as Extract<EvaluationEvent, { type: 'evaluation_requested' }>).data;
    // Recorded before anything is assembled: a run that takes the process down is counted, and
    // past `maxStarts` the evaluation fails here instead of running again (at every start).
    const started = await this.record(org, id, { kind: 'start', id, maxStarts: this.budgets.maxStarts });
    if (!started.some((e) => e.type === 'evaluation_started'))
      return started.length ? 'interrupted' : 'already finished';
    try {
      const at = microsToSeconds(data.recorded_at);
      const refs = distinctTrails(data.context.trails);
      const pasts = await this.timeMachine.atAll(org, refs, at, data.recorded_position);
      const limit = this.budgets.inputBytes;
      // Counted from the events as stored, before a byte of input is made.
      const stored = pasts.reduce((sum, past) => sum + past.bytes, 0);
      if (stored > limit) throw new PolicyError('policy_error', inputTooLarge(stored, limit));
      // A text of N characters is at least N bytes.
      const times = timesInInput(pasts.length);
      let made = 0;
      const trails = pasts.map((past, i) => {
        if (!past.view)
          throw new PolicyError(
            'service_error',
            `trail ${refs[i].flow}/${refs[i].trail} vanished at the pinned instant`,
          );
        const json = policyInputJson(past.view, past.template, Math.floor((limit - made) / times));
        if (typeof json === 'number')
          throw new PolicyError(
            'policy_error',
            inputTooLarge(made + json * times, limit, 'make an input of more than'),
          );
        made += json.length * times;
        return json;
      });
      const bytes = policyInputBytes(trails);
      if (bytes > limit)
        throw new PolicyError('policy_error', inputTooLarge(bytes, limit, 'make an input of'));
      const input = assemblePolicyInput(trails);
      trails.length = 0; // the texts can go while the policy runs: the input holds them now
      const compiled = await this.compiler.compile(data.policy.files);
      const result = await this.evaluator.evaluateBytes(compiled, input, { params: data.params });
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

  private async record(org: string, id: string, command: EvaluationCommand): Promise<EvaluationEvent[]> {
    const executed = await this.commands.execute(
      new ChangeEvaluation(org, id, command, {
        org,
        actor: { kind: 'system', name: 'evaluator' },
        causation_id: id,
      }),
    );
    for (const event of executed.events) {
      if (event.type === 'evaluation_completed')
        this.metrics.evaluationsFinished.inc({ outcome: 'completed' });
      if (event.type === 'evaluation_failed')
        this.metrics.evaluationsFinished.inc({ outcome: event.data.error.kind });
    }
    return executed.events;
  }
}
