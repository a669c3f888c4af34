import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Req } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { CommandBus } from '@nestjs/cqrs';
import { meetsTags, tagConditions, tagsOf } from '#des/kernel';
import { ApiError, AtQuery, READ_STORE, ReadModelsAt, Requires, VALIDATION_FAILED } from '#des/platform';
import { type Doc, docReads, type ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata, requireFeature } from '#des/accounts';
import { policiesOf, policiesProjection } from '#des/policies';
import { ChangeControl } from './control.commands';
import { CONTROL_NOT_FOUND, type ControlCommand, type Links } from './control.decider';
import { ControlPostInput, ControlsPage, ControlsQuery, ControlView, UpdateControlDto } from './controls.dto';
import { CONTROLS, controlId, controlsProjection } from './controls.projection';

/** A control as endpoint 2 answers it: every field of the spec's Control table. */
const controlView = (doc: Doc, policiesReferencing: string[]): ControlView => ({
  identifier: doc.identifier as string,
  // Controls created before a name defaulted to the identifier have none recorded.
  name: (doc.name as string | undefined) ?? (doc.identifier as string),
  version: doc.version as number,
  created_by: doc.created_by as string,
  description: doc.description as string,
  links: doc.links as Links,
  created_at: doc.created_at as number,
  last_modified_at: doc.last_modified_at as number,
  tags: tagsOf(doc.tags),
  archived: doc.archived as boolean,
  policies_referencing: policiesReferencing,
});

/** Links are named URLs: every value a string. */
function linkErrors(links: Links | undefined): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [name, url] of Object.entries(links ?? {}))
    if (typeof url !== 'string') errors[`links.${name}`] = 'a link is a string (its URL)';
  return errors;
}

/** Controls (beta, endpoint 2): compliance controls the policies refer to. */
@ApiTags('controls')
@ApiExtraModels(ControlView, ControlsPage)
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('controls')
export class ControlsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly history: ReadModelsAt,
  ) {}

  /** Controls, with the policies whose rules name them. */
  private readsAt(org: string, at: number | undefined): Promise<ReadStore> {
    return this.history.readsFor(at, { org, projections: [controlsProjection, policiesProjection] });
  }

  @Post(':org')
  @ApiOperation({ operationId: 'createControl', summary: 'Create a control' })
  @Requires('member')
  @ApiCreatedResponse({ type: ControlView })
  async create(
    @Param('org') org: string,
    @Body() body: ControlPostInput,
    @Req() req: AuthenticatedRequest,
  ): Promise<ControlView> {
    await requireFeature(this.reads, org, 'controls');
    this.validate(body);
    await this.commands.execute(
      new ChangeControl(
        org,
        {
          kind: 'create_control',
          identifier: body.identifier,
          name: body.name ?? body.identifier,
          description: body.description ?? '',
          links: body.links ?? {},
          createdBy: req.principal.account,
        },
        requestMetadata(req),
      ),
    );
    return this.view(await this.control(org, body.identifier));
  }

  @Get(':org')
  @ApiOperation({
    operationId: 'listControls',
    summary: 'List controls',
    description:
      'The controls not archived (with `archived=true`, the archived ones), by identifier; with `page` or ' +
      '`per_page`, a page of them (`{controls, page, per_page, total_pages, total_count}`). `search` keeps ' +
      'those whose identifier or name contains it (any case); each `tag` (`key:value` or `key`) must hold.',
  })
  @Requires('reader')
  @ApiOkResponse({
    schema: {
      oneOf: [
        { type: 'array', items: { $ref: getSchemaPath(ControlView) } },
        { $ref: getSchemaPath(ControlsPage) },
      ],
    },
  })
  async list(
    @Param('org') org: string,
    @Query() query: ControlsQuery,
  ): Promise<ControlView[] | ControlsPage> {
    await requireFeature(this.reads, org, 'controls');
    const reads = await this.readsAt(org, query.at);
    const direction = query.sort_direction === 'desc' ? -1 : 1;
    const all = await reads.collection(CONTROLS).find({ org }, { sort: { identifier: direction } });
    const policies = await policiesOf(docReads(reads), org);
    const referencing = (identifier: unknown) =>
      policies.filter((p) => (p.controls ?? []).includes(identifier as string)).map((p) => p.name);
    const archived = query.archived === 'true';
    const search = query.search?.toLowerCase();
    const conditions = tagConditions(query.tag ?? []);
    const tagged = (doc: Doc) => meetsTags(tagsOf(doc.tags), conditions);
    const controls = all
      .filter(
        (c) =>
          (c.archived === true) === archived &&
          (!search ||
            String(c.identifier).toLowerCase().includes(search) ||
            String(c.name ?? '')
              .toLowerCase()
              .includes(search)) &&
          tagged(c),
      )
      .map((c) => controlView(c, referencing(c.identifier)));
    if (query.page === undefined && query.per_page === undefined) return controls;
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 20;
    return {
      controls: controls.slice((page - 1) * perPage, page * perPage),
      page,
      per_page: perPage,
      total_pages: Math.ceil(controls.length / perPage),
      total_count: controls.length,
    };
  }

  @Post(':org/:identifier/archive')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'archiveControl',
    summary: 'Archive a control: it refuses changes and leaves the list (unless asked); its versions stay',
  })
  @Requires('member')
  @ApiOkResponse({ type: ControlView })
  archive(
    @Param('org') org: string,
    @Param('identifier') identifier: string,
    @Req() req: AuthenticatedRequest,
  ): Promise<ControlView> {
    return this.change(org, { kind: 'archive_control', identifier }, req);
  }

  @Post(':org/:identifier/unarchive')
  @HttpCode(200)
  @ApiOperation({ operationId: 'unarchiveControl', summary: 'Unarchive a control' })
  @Requires('member')
  @ApiOkResponse({ type: ControlView })
  unarchive(
    @Param('org') org: string,
    @Param('identifier') identifier: string,
    @Req() req: AuthenticatedRequest,
  ): Promise<ControlView> {
    return this.change(org, { kind: 'unarchive_control', identifier }, req);
  }

  private async change(
    org: string,
    command: ControlCommand,
    req: AuthenticatedRequest,
  ): Promise<ControlView> {
    await requireFeature(this.reads, org, 'controls');
    await this.commands.execute(new ChangeControl(org, command, requestMetadata(req)));
    return this.view(await this.control(org, command.identifier));
  }

  @Get(':org/:identifier')
  @ApiOperation({ operationId: 'getControl', summary: 'Read a control' })
  @Requires('reader')
  @ApiOkResponse({ type: ControlView })
  async read(
    @Param('org') org: string,
    @Param('identifier') identifier: string,
    @Query() { at }: AtQuery,
  ): Promise<ControlView> {
    await requireFeature(this.reads, org, 'controls');
    const reads = await this.readsAt(org, at);
    return this.view(await this.control(org, identifier, reads), reads);
  }

  /** Endpoint 2: a new version when a field changes; the same body again keeps the version. */
  @Put(':org/:identifier')
  @ApiOperation({
    operationId: 'updateControl',
    summary: 'Update a control, as a new version when a field changes',
  })
  @Requires('member')
  @ApiOkResponse({ type: ControlView })
  async update(
    @Param('org') org: string,
    @Param('identifier') identifier: string,
    @Body() body: UpdateControlDto,
    @Req() req: AuthenticatedRequest,
  ): Promise<ControlView> {
    await requireFeature(this.reads, org, 'controls');
    this.validate(body);
    await this.commands.execute(
      new ChangeControl(
        org,
        {
          kind: 'update_control',
          identifier,
          name: body.name,
          description: body.description,
          links: body.links,
        },
        requestMetadata(req),
      ),
    );
    return this.view(await this.control(org, identifier));
  }

  /** The control with the policies whose attestation rules name it (`for_control`), by name. */
  private async view(doc: Doc, reads: ReadStore = this.reads): Promise<ControlView> {
    const policies = await policiesOf(docReads(reads), doc.org as string, doc.identifier as string);
    return controlView(
      doc,
      policies.map((p) => p.name),
    );
  }

  private validate(body: UpdateControlDto): void {
    const errors = linkErrors(body.links);
    if (Object.keys(errors).length) throw new ApiError(400, VALIDATION_FAILED, errors);
  }

  private async control(org: string, identifier: string, reads: ReadStore = this.reads): Promise<Doc> {
    const doc = await reads.collection(CONTROLS).findOne({ _id: controlId(org, identifier) });
    if (!doc) throw new ApiError(404, CONTROL_NOT_FOUND);
    return doc;
  }
}
