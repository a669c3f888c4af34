import { Body, Controller, Get, HttpCode, Inject, Param, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { tagsOf } from '#des/kernel';
import {
  AcceptsDataJson,
  ApiCreatedOrUpdated,
  ApiError,
  AtQuery,
  READ_STORE,
  ReadModelsAt,
  Requires,
} from '#des/platform';
import type { Doc, ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { ChangeFlow } from './flow.commands';
import { withTemplateFile } from './flow-template-file';
import { FLOW_NOT_FOUND, flowArchived, type FlowCommand } from './flow.decider';
import { type FlowTemplate, fromLegacyTemplate, templateErrors } from './flow-template';
import { FlowsPage, FlowsQuery, FlowTemplateView, FlowView, PutFlowDto, RenameFlowDto } from './flows.dto';
import { FLOWS, flowId, flowsProjection } from './flows.projection';

/** A flow document as the API shows it: every field but the store's own, its tags as a map. */
const flowView = (doc: Doc): FlowView => ({
  org: doc.org as string,
  name: doc.name as string,
  description: doc.description as string,
  template: doc.template as FlowTemplateView | null,
  tags: tagsOf(doc.tags),
  created_at: doc.created_at as number,
  last_modified_at: doc.last_modified_at as number,
  archived: doc.archived === true,
  renamed_from: (doc.renamed_from as string | null | undefined) ?? null,
  renamed_to: (doc.renamed_to as string | null | undefined) ?? null,
});

/** Shown in the list: neither archived nor renamed away. */
const listed = (doc: Doc) => doc.archived !== true && doc.renamed_to == null;

@ApiTags('flows')
@ApiExtraModels(FlowTemplateView, FlowView, FlowsPage)
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('flows')
export class FlowsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly history: ReadModelsAt,
  ) {}

  @Put(':org')
  @ApiOperation({ operationId: 'putFlow', summary: 'Create or update a flow' })
  @ApiCreatedOrUpdated(FlowView)
  @Requires('member')
  async put(
    @Param('org') org: string,
    @Body() body: PutFlowDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FlowView> {
    return this.save(org, body, req, res);
  }

  /** The Kosli CLI's `create flow --template-file`: `data_json`, and the template as YAML in `template_file`. */
  @Put(':org/template_file')
  @ApiOperation({
    operationId: 'putFlowWithTemplateFile',
    summary: 'Create or update a flow from a template file',
  })
  @ApiCreatedOrUpdated(FlowView)
  @Requires('member')
  @AcceptsDataJson(withTemplateFile, {
    files: {
      template_file: {
        description: "The template as YAML: the Kosli CLI's (`version: 1`) or this service's shape",
        required: true,
      },
    },
  })
  async putWithTemplateFile(
    @Param('org') org: string,
    @Body() body: PutFlowDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FlowView> {
    return this.save(org, body, req, res);
  }

  private async save(
    org: string,
    body: PutFlowDto,
    req: AuthenticatedRequest,
    res: Response,
  ): Promise<FlowView> {
    const errors = body.template == null ? {} : templateErrors(body.template);
    if (body.template != null && typeof body.template !== 'object')
      errors.template = 'a template is an object, or a list of attestation names';
    const badTags = Object.entries(body.tags ?? {}).filter(([, v]) => typeof v !== 'string');
    for (const [k] of badTags) errors[`tags.${k}`] = 'tag values are strings';
    if (Object.keys(errors).length) throw new ApiError(400, 'Input payload validation failed', errors);
    const done = await this.commands.execute(
      new ChangeFlow(
        org,
        {
          kind: 'put_flow',
          name: body.name,
          description: body.description ?? '',
          template: Array.isArray(body.template)
            ? fromLegacyTemplate(body.template)
            : ((body.template as FlowTemplate | undefined) ?? null),
          tags: body.tags ?? {},
        },
        requestMetadata(req),
      ),
    );
    res.status(done.events[0]?.type === 'flow_created' ? 201 : 200);
    return flowView((await this.reads.collection(FLOWS).findOne({ _id: flowId(org, body.name) }))!);
  }

  @Get(':org')
  @ApiOperation({
    operationId: 'listFlows',
    summary: 'List flows',
    description:
      'Every flow neither archived nor renamed, by name; with `page` or `per_page`, a page of them ' +
      '(`{data, pagination}`). `search_by_name` keeps the flows whose name contains it ' +
      '(`case_sensitive=false` to ignore case).',
  })
  @Requires('reader')
  @ApiOkResponse({
    schema: {
      oneOf: [
        { type: 'array', items: { $ref: getSchemaPath(FlowView) } },
        { $ref: getSchemaPath(FlowsPage) },
      ],
    },
  })
  async list(@Param('org') org: string, @Query() query: FlowsQuery): Promise<FlowView[] | FlowsPage> {
    const reads = await this.history.readsFor(query.at, { org, projections: [flowsProjection] });
    const all = await reads.collection(FLOWS).find({ org }, { sort: { name: 1 } });
    const search = query.search_by_name;
    const ignoreCase = query.case_sensitive === 'false';
    const matches = (name: string) =>
      !search || (ignoreCase ? name.toLowerCase().includes(search.toLowerCase()) : name.includes(search));
    const flows = all.filter((d) => listed(d) && matches(d.name as string)).map(flowView);
    if (query.page === undefined && query.per_page === undefined) return flows;
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 20;
    return {
      data: flows.slice((page - 1) * perPage, page * perPage),
      pagination: {
        page,
        page_count: Math.ceil(flows.length / perPage),
        total: flows.length,
        per_page: perPage,
      },
    };
  }

  @Put(':org/:flow/archive')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'archiveFlow',
    summary: 'Archive a flow: it refuses changes and leaves the list; its trails and history stay',
  })
  @Requires('member')
  @ApiOkResponse({ type: FlowView })
  async archive(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Req() req: AuthenticatedRequest,
  ): Promise<FlowView> {
    return this.change(org, { kind: 'archive_flow', name: flow }, req);
  }

  @Put(':org/:flow/unarchive')
  @HttpCode(200)
  @ApiOperation({ operationId: 'unarchiveFlow', summary: 'Unarchive a flow' })
  @Requires('member')
  @ApiOkResponse({ type: FlowView })
  async unarchive(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Req() req: AuthenticatedRequest,
  ): Promise<FlowView> {
    return this.change(org, { kind: 'unarchive_flow', name: flow }, req);
  }

  /**
   * The flow moves to the new name (its description, template and tags); the old
   * name keeps its history and its trails, and answers reads until another flow
   * takes it (ADR 0028).
   */
  @Put(':org/:flow/rename')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'renameFlow',
    summary: 'Rename a flow',
    description:
      'The flow, with its description, template and tags, continues under `new_name`. Its history and ' +
      'its trails stay under the old name, which still answers reads (with `renamed_to`) until a flow ' +
      'is created under it again.',
  })
  @Requires('member')
  @ApiOkResponse({ type: FlowView, description: 'The flow under its new name' })
  async rename(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Body() body: RenameFlowDto,
    @Req() req: AuthenticatedRequest,
  ): Promise<FlowView> {
    const metadata = requestMetadata(req);
    const old = await this.reads.collection(FLOWS).findOne({ _id: flowId(org, flow) });
    if (!old || (old.renamed_to != null && old.renamed_to !== body.new_name))
      throw new ApiError(404, FLOW_NOT_FOUND);
    if (body.new_name === flow) return flowView(old);
    if (old.archived === true) throw new ApiError(400, flowArchived(flow));
    // The new name first: a crash between the two leaves the flow under both names, never under none;
    // the same request again (an Idempotency-Key's resume) finishes it.
    await this.commands.execute(
      new ChangeFlow(
        org,
        {
          kind: 'receive_renamed_flow',
          from: flow,
          name: body.new_name,
          description: old.description as string,
          template: old.template as FlowTemplate | null,
          tags: tagsOf(old.tags),
        },
        metadata,
      ),
    );
    await this.commands.execute(
      new ChangeFlow(org, { kind: 'rename_flow', name: flow, newName: body.new_name }, metadata),
    );
    return flowView((await this.reads.collection(FLOWS).findOne({ _id: flowId(org, body.new_name) }))!);
  }

  private async change(org: string, command: FlowCommand, req: AuthenticatedRequest): Promise<FlowView> {
    await this.commands.execute(new ChangeFlow(org, command, requestMetadata(req)));
    return flowView((await this.reads.collection(FLOWS).findOne({ _id: flowId(org, command.name) }))!);
  }

  @Get(':org/:flow')
  @ApiOperation({ operationId: 'getFlow', summary: 'Read a flow' })
  @Requires('reader')
  @ApiOkResponse({ type: FlowView })
  async read(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Query() { at }: AtQuery,
  ): Promise<FlowView> {
    const reads = await this.history.readsFor(at, { org, projections: [flowsProjection], within: flow });
    const doc = await reads.collection(FLOWS).findOne({ _id: flowId(org, flow) });
    if (!doc) throw new ApiError(404, FLOW_NOT_FOUND);
    return flowView(doc);
  }
}
