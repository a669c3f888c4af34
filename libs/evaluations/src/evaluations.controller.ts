import { Body, Controller, Get, Inject, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { EventStore } from '#des/event-store';
import { microsToSeconds, nowMicros, secondsToMicros } from '#des/event-store';
import type { Jobs } from '#des/jobs';
import { CommandBus } from '@nestjs/cqrs';
import {
  ApiError,
  AtQuery,
  CONFIG,
  type Config,
  EVENT_STORE,
  JOBS,
  READ_STORE,
  Requires,
  stableId,
} from '#des/platform';
import type { ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requireFeature, requestMetadata } from '#des/accounts';
import { TrailTimeMachine } from '#des/trails';
import { ChangeEvaluation } from './evaluation.commands';
import { EVALUATION_REQUEST_SCHEMA, parseEvaluationRequest } from './evaluation-request';
import {
  type EvaluationErrorView,
  type EvaluationResultView,
  type EvaluationStatus,
  EvaluationView,
} from './evaluations.dto';
import { EVALUATIONS } from './evaluations.projection';
import { PendingEvaluations } from './pending-evaluations';
import { distinctTrails, inputTooLarge } from './policy-input';

/** Endpoint 1 (beta): inline Rego against 1–100 trails at one recorded instant. */
@ApiTags('evaluations')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('evaluations')
export class EvaluationsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(JOBS) private readonly jobs: Jobs,
    private readonly timeMachine: TrailTimeMachine,
    private readonly pending: PendingEvaluations,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Post(':org')
  @ApiOperation({
    operationId: 'createEvaluation',
    summary: 'Evaluate a Rego policy against trails at one recorded instant',
  })
  @Requires('member')
  @ApiBody({
    description: '{context: {trails: [{flow, trail}]}, policy: {files: {path: rego}}, params?}',
    schema: EVALUATION_REQUEST_SCHEMA as never,
  })
  @ApiCreatedResponse({ type: EvaluationView, description: 'Recorded: pending until it has run' })
  async create(
    @Param('org') org: string,
    @Body() body: unknown,
    @Query() query: AtQuery,
    @Req() req: AuthenticatedRequest,
  ): Promise<EvaluationView> {
    await this.requireFeature(org);
    const request = parseEvaluationRequest(body);
    if ('errors' in request) throw new ApiError(400, 'Input payload validation failed', request.errors);
    // Pinned to the log's head, or (`?at=`) to the last event recorded at or before that instant.
    const head =
      query.at === undefined
        ? await this.events.head()
        : {
            ...(await this.events.positionAt(secondsToMicros(query.at))),
            recordedAt: secondsToMicros(query.at),
          };
    const at = microsToSeconds(head.recordedAt);
    let bytes = 0;
    const refs = distinctTrails(request.context.trails.map((ref, i) => ({ ...ref, i })));
    for (const ref of refs) {
      const past = await this.timeMachine.at(org, ref.flow, ref.trail, at, head.position);
      if (!past.view) {
        throw new ApiError(404, 'Trail not found', {
          [`context.trails[${ref.i}]`]: `no trail ${ref.flow}/${ref.trail} at the pinned instant`,
        });
      }
      bytes += past.bytes;
    }
    // Known from the folds just made: an input the worker would refuse is refused now.
    const limit = this.config.evaluationBudgets.inputBytes;
    if (bytes > limit)
      throw new ApiError(413, `Evaluation input too large: its trails may hold at most ${limit} bytes`, {
        'context.trails': inputTooLarge(bytes, limit),
      });
    // A retry of an idempotent request that died names the same evaluation (recorded once).
    const id = stableId('evaluation');
    const requestedAt = nowMicros();
    // Past the organization's pending cap: 429, nothing queued or recorded.
    const done = await this.pending.admit(org, async () => {
      // The queue answers first: if it is down the answer is 503 and nothing is recorded. The
      // job is enqueued once the request is in the log (evaluation-dispatch reaction).
      await this.jobs.ping();
      return this.commands.execute(
        new ChangeEvaluation(
          org,
          id,
          {
            kind: 'request',
            data: {
              id,
              requested_at: requestedAt,
              recorded_at: head.recordedAt,
              recorded_position: head.position,
              context: request.context,
              policy: request.policy,
              params: request.params ?? {},
            },
          },
          requestMetadata(req),
        ),
      );
    });
    // As recorded: a resumed request answers what its first attempt recorded.
    const requested = done.events.find((e) => e.type === 'evaluation_requested');
    if (!requested) throw new Error(`evaluation ${id} was recorded before`);
    return {
      id,
      status: 'pending',
      requested_at: microsToSeconds(requested.data.requested_at),
      recorded_at: microsToSeconds(requested.data.recorded_at),
      recorded_position: requested.data.recorded_position,
    };
  }

  @Get(':org/:id')
  @ApiOperation({ operationId: 'getEvaluation', summary: 'Read an evaluation and its result' })
  @Requires('reader')
  @ApiOkResponse({ type: EvaluationView })
  async read(@Param('org') org: string, @Param('id') id: string): Promise<EvaluationView> {
    await this.requireFeature(org);
    const doc = await this.reads.collection(EVALUATIONS).findOne({ _id: `${org}/${id}` });
    if (!doc) throw new ApiError(404, 'Evaluation not found');
    return {
      id: doc.id as string,
      status: doc.status as EvaluationStatus,
      requested_at: doc.requested_at as number,
      recorded_at: doc.recorded_at as number,
      recorded_position: doc.recorded_position as number | undefined,
      ...(doc.status === 'completed' ? { result: doc.result as EvaluationResultView } : {}),
      ...(doc.status === 'failed' ? { error: doc.error as EvaluationErrorView } : {}),
    };
  }

  private requireFeature(org: string): Promise<void> {
    return requireFeature(this.reads, org, 'evaluations');
  }
}
