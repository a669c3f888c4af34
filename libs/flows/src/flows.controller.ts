import { Body, Controller, Get, Inject, Param, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { tagsOf } from '#des/kernel';
import {
  AcceptsDataJson,
  ApiCreatedOrUpdated,
  ApiError,
  AtQuery,
  parseBoundedYaml,
  READ_STORE,
  ReadModelsAt,
  readUploadedPart,
  Requires,
  type UploadedPart,
  VALIDATION_FAILED,
  YamlRefusal,
} from '#des/platform';
import type { Doc, ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { ChangeFlow } from './flow.commands';
import { templateErrors } from './flow-template';
import { FlowTemplateView, FlowView, PutFlowDto } from './flows.dto';
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
});

@ApiTags('flows')
@ApiExtraModels(FlowTemplateView)
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
          template: body.template ?? null,
          tags: body.tags ?? {},
        },
        requestMetadata(req),
      ),
    );
    res.status(done.events[0]?.type === 'flow_created' ? 201 : 200);
    return flowView((await this.reads.collection(FLOWS).findOne({ _id: flowId(org, body.name) }))!);
  }

  @Get(':org')
  @ApiOperation({ operationId: 'listFlows', summary: 'List flows' })
  @Requires('reader')
  @ApiOkResponse({ type: [FlowView] })
  async list(@Param('org') org: string, @Query() { at }: AtQuery): Promise<FlowView[]> {
    const reads = await this.history.readsFor(at, { org, projections: [flowsProjection] });
    return (await reads.collection(FLOWS).find({ org }, { sort: { name: 1 } })).map(flowView);
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
    if (!doc) throw new ApiError(404, 'Flow not found');
    return flowView(doc);
  }
}

/** The flow as data_json gives it, with the template read from the YAML in `template_file`. */
async function withTemplateFile(dataJson: Record<string, unknown>, parts: UploadedPart[]): Promise<unknown> {
  const file = parts.find((p) => p.field === 'template_file');
  if (!file)
    throw new ApiError(400, VALIDATION_FAILED, { template_file: 'send the template as template_file' });
  const content = await readUploadedPart(file);
  let template: unknown;
  try {
    template = parseBoundedYaml(content);
  } catch (error) {
    if (!(error instanceof YamlRefusal) || error.kind === 'syntax')
      throw new ApiError(400, VALIDATION_FAILED, { template_file: `not YAML: ${(error as Error).message}` });
    const message = error.status === 413 ? 'Template file too large' : VALIDATION_FAILED;
    throw new ApiError(error.status, message, { template_file: `the template ${error.message}` });
  }
  if (template === null || typeof template !== 'object' || Array.isArray(template))
    throw new ApiError(400, VALIDATION_FAILED, { template_file: 'a template is a YAML mapping' });
  return { ...dataJson, template: fromKosliTemplate(template) };
}

/**
 * A template file as the Kosli CLI uploads it (`version: 1`, the artifacts
 * under `trail`) in this service's shape (artifacts beside the trail). A
 * template already in this shape is kept as it is.
 */
export function fromKosliTemplate(file: object): unknown {
  const { version: _version, trail, ...rest } = file as { version?: unknown; trail?: unknown };
  if (!trail || typeof trail !== 'object' || !('artifacts' in trail))
    return { ...rest, ...(trail ? { trail } : {}) };
  const { artifacts, ...trailRest } = trail as { artifacts?: unknown };
  return { ...rest, trail: trailRest, artifacts };
}
