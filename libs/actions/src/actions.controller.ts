import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CommandBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import {
  ApiCreatedOrUpdated,
  ApiError,
  AtQuery,
  CONFIG,
  paged,
  PageQuery,
  READ_STORE,
  ReadModelsAt,
  Requires,
  ServiceKey,
  type Config,
  VALIDATION_FAILED,
} from '#des/platform';
import { type Doc, docReads, type ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { environmentsNamed } from '#des/environments';
import { ChangeActions, ChangeDelivery } from './action.commands';
import { ACTION_NOT_FOUND, type ActionsState } from './action.decider';
import { ACTIONS, actionId, DELIVERIES, deliveryId, actionsProjection } from './actions.projection';
import {
  ActionSecretView,
  ActionView,
  CreatedActionView,
  DeliveriesPage,
  type DeliveryAttemptView,
  type DeliveryView,
  PutActionDto,
  RedeliveryView,
  type TargetDto,
} from './actions.dto';
import { DELIVERY_NOT_FOUND } from './delivery.decider';
import { actionSecret } from './signing';
import { targetProblem } from './target-address';

/** An action as endpoint 10 answers it: every field of the spec's Action table. */
const actionView = (doc: Doc): ActionView => ({
  name: doc.name as string,
  type: doc.type as string,
  number: doc.number as number,
  targets: doc.targets as TargetDto[],
  triggers: doc.triggers as ActionView['triggers'],
  created_by: doc.created_by as string,
  is_created_from_slack_app: (doc.is_created_from_slack_app as boolean | undefined) ?? false,
  last_modified_at: doc.last_modified_at as number,
  created_at: doc.created_at as number,
  is_failing: (doc.is_failing as boolean | undefined) ?? false,
  last_success_timestamp: (doc.last_success_timestamp as number | null | undefined) ?? null,
  last_failure_timestamp: (doc.last_failure_timestamp as number | null | undefined) ?? null,
  flows: (doc.flows as string[] | undefined) ?? [],
  environments: doc.environments as string[],
});

/** A delivery as its list answers it: the document without the store's fields and the organization. */
const deliveryView = (doc: Doc): DeliveryView => ({
  id: doc.id as string,
  action: doc.action as number,
  action_name: doc.action_name as string,
  target_index: doc.target_index as number,
  target: doc.target as TargetDto,
  trigger: doc.trigger as DeliveryView['trigger'],
  payload: doc.payload as Record<string, unknown>,
  event_type: doc.event_type as string,
  source_event_id: doc.source_event_id as string,
  status: doc.status as DeliveryView['status'],
  round: doc.round as number,
  scheduled_at: doc.scheduled_at as number,
  delivered_at: doc.delivered_at as number | null,
  attempts: doc.attempts as DeliveryAttemptView[],
  ...('last_attempt_at' in doc ? { last_attempt_at: doc.last_attempt_at as number } : {}),
  ...('redelivery_requested_at' in doc
    ? { redelivery_requested_at: doc.redelivery_requested_at as number }
    : {}),
});

const parseNumber = (raw: string) => (/^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : null);

/** Actions (endpoint 10): notifications of environment changes, signed, delivered durably. */
@ApiTags('actions')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('actions')
export class ActionsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONFIG) private readonly config: Config,
    private readonly signingKey: ServiceKey,
    private readonly history: ReadModelsAt,
  ) {}

  /** Actions now, or (`at`) as their stream and their deliveries made them up to that instant. */
  private readsAt(org: string, at: number | undefined): Promise<ReadStore> {
    return this.history.readsFor(at, { org, projections: [actionsProjection] });
  }

  /** Creates (201, with its signing secret, shown this once) or updates (200) the action named `name`. */
  @Put(':org/environments')
  @ApiOperation({ operationId: 'putAction', summary: 'Create or update an environment action' })
  @ApiCreatedOrUpdated(ActionView, CreatedActionView)
  @Requires('admin')
  async put(
    @Param('org') org: string,
    @Body() body: PutActionDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ActionView | CreatedActionView> {
    await this.checkTargets(body);
    await this.checkEnvironments(org, body.environments);
    const done = await this.commands.execute(
      new ChangeActions(
        org,
        {
          kind: 'put_action',
          name: body.name,
          createdBy: req.principal.account,
          environments: body.environments,
          triggers: body.triggers,
          targets: body.targets.map((t) => ({ type: t.type, webhook: t.webhook })),
          flows: body.flows ?? [],
        },
        requestMetadata(req),
      ),
    );
    const created = done.events.find((e) => e.type === 'action_created');
    const number = Object.values((done.state as ActionsState).actions).find(
      (a) => a.name === body.name,
    )!.number;
    const view = actionView(await this.action(org, number));
    if (!created) return view;
    res.status(201);
    const withSecret: CreatedActionView = {
      ...view,
      secret: this.secretOf(org, done.state as ActionsState, number),
    };
    return withSecret;
  }

  @Get(':org')
  @ApiOperation({ operationId: 'listActions', summary: 'List actions' })
  @Requires('reader')
  @ApiOkResponse({ type: [ActionView] })
  async list(@Param('org') org: string, @Query() { at }: AtQuery): Promise<ActionView[]> {
    const reads = await this.readsAt(org, at);
    const docs = await reads.collection(ACTIONS).find({ org, deleted: false }, { sort: { number: 1 } });
    return docs.map(actionView);
  }

  @Get(':org/:number')
  @ApiOperation({ operationId: 'getAction', summary: 'Read an action' })
  @Requires('reader')
  @ApiOkResponse({ type: ActionView })
  async read(
    @Param('org') org: string,
    @Param('number') raw: string,
    @Query() { at }: AtQuery,
  ): Promise<ActionView> {
    return actionView(await this.action(org, this.number(raw), await this.readsAt(org, at)));
  }

  @Delete(':org/:number')
  @ApiOperation({ operationId: 'deleteAction', summary: 'Delete an action' })
  @Requires('admin')
  @HttpCode(204)
  async delete(@Param('org') org: string, @Param('number') raw: string, @Req() req: AuthenticatedRequest) {
    const number = this.number(raw);
    await this.commands.execute(
      new ChangeActions(org, { kind: 'delete_action', number }, requestMetadata(req)),
    );
  }

  /** A new signing secret, shown this once; the old one stops signing at once. */
  @Post(':org/:number/secret')
  @ApiOperation({ operationId: 'rotateActionSecret', summary: "Rotate an action's signing secret" })
  @Requires('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: ActionSecretView })
  async rotateSecret(
    @Param('org') org: string,
    @Param('number') raw: string,
    @Req() req: AuthenticatedRequest,
  ): Promise<ActionSecretView> {
    const number = this.number(raw);
    const done = await this.commands.execute(
      new ChangeActions(org, { kind: 'rotate_secret', number }, requestMetadata(req)),
    );
    return { number, secret: this.secretOf(org, done.state as ActionsState, number) };
  }

  /** The action's deliveries, newest first, with every attempt. */
  @Get(':org/:number/deliveries')
  @ApiOperation({ operationId: 'listActionDeliveries', summary: "List an action's deliveries, newest first" })
  @Requires('reader')
  @ApiOkResponse({ type: DeliveriesPage })
  async deliveries(
    @Param('org') org: string,
    @Param('number') raw: string,
    @Query() query: PageQuery,
    @Req() req: Request,
  ): Promise<DeliveriesPage> {
    const number = this.number(raw);
    const reads = await this.readsAt(org, query.at);
    await this.action(org, number, reads);
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 20;
    const filter = { org, action: number };
    const collection = reads.collection(DELIVERIES);
    const { total, docs } = await collection.findPage(filter, {
      sort: { scheduled_at: -1, id: 1 },
      skip: (page - 1) * perPage,
      limit: perPage,
    });
    const { items: deliveries, ...page_ } = paged(docs.map(deliveryView), {
      page,
      perPage,
      total,
      base: req.originalUrl.split('?')[0],
      query: query.at === undefined ? {} : { at: String(query.at) },
    });
    return { ...page_, deliveries };
  }

  /** Sends a dead letter again (a new round of tries). */
  @Post(':org/:number/deliveries/:delivery/redeliver')
  @ApiOperation({ operationId: 'redeliverActionDelivery', summary: 'Send a dead-lettered delivery again' })
  @Requires('admin')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: RedeliveryView })
  async redeliver(
    @Param('org') org: string,
    @Param('number') raw: string,
    @Param('delivery') delivery: string,
    @Req() req: AuthenticatedRequest,
  ): Promise<RedeliveryView> {
    const number = this.number(raw);
    await this.action(org, number);
    const doc = await this.reads.collection(DELIVERIES).findOne({ _id: deliveryId(org, delivery) });
    if (!doc || doc.action !== number) throw new ApiError(404, DELIVERY_NOT_FOUND);
    await this.commands.execute(
      new ChangeDelivery(org, { kind: 'redeliver', id: delivery }, requestMetadata(req)),
    );
    return { delivery, status: 'pending' };
  }

  private secretOf(org: string, state: ActionsState, number: number): string {
    return actionSecret(this.signingKey.get(), org, number, state.actions[number].secretId);
  }

  private number(raw: string): number {
    const number = parseNumber(raw);
    if (number === null) throw new ApiError(404, ACTION_NOT_FOUND);
    return number;
  }

  private async action(org: string, number: number, reads: ReadStore = this.reads): Promise<Doc> {
    const doc = await reads.collection(ACTIONS).findOne({ _id: actionId(org, number) });
    if (!doc || doc.deleted) throw new ApiError(404, ACTION_NOT_FOUND);
    return doc;
  }

  /** Every target is an http(s) URL that resolves to an address it may reach. */
  private async checkTargets(body: PutActionDto): Promise<void> {
    const errors: Record<string, string> = {};
    await Promise.all(
      body.targets.map(async (target, i) => {
        const problem = await targetProblem(target.webhook, this.config.actions.allowPrivateTargets);
        if (problem) errors[`targets[${i}].webhook`] = problem;
      }),
    );
    if (Object.keys(errors).length) throw new ApiError(400, VALIDATION_FAILED, errors);
  }

  private async checkEnvironments(org: string, names: string[]): Promise<void> {
    const known = new Set(await environmentsNamed(docReads(this.reads), org, names));
    const errors: Record<string, string> = {};
    names.forEach((name, i) => {
      if (!known.has(name)) errors[`environments[${i}]`] = `environment '${name}' does not exist`;
    });
    if (Object.keys(errors).length) throw new ApiError(404, 'Environment not found', errors);
  }
}
