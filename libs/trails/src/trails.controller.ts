import { Body, Controller, Get, Param, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { tagsOf } from '#des/kernel';
import {
  AcceptsDataJson,
  ApiCreatedOrUpdated,
  AtQuery,
  paged,
  PageQuery,
  ReadModelsAt,
  Requires,
  sendJson,
} from '#des/platform';
import { docReads } from '#des/read-store';
import { withoutInternals } from '#des/projections';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { checkingTemplateFile, flowsNamed, flowsOf, flowsProjection, type FlowTemplate } from '#des/flows';
import { ChangeTrail } from './trail.commands';
import { TrailReads } from './trail-reads';
import { trailUrl } from './trail-url';
import { trailAsShown, trailCompliance, TrailView } from './trail.view';
import {
  OrganizationTrailsPage,
  PutTrailDto,
  TrailEventsPage,
  TrailShownView,
  TrailsQuery,
  TrailSummaryView,
} from './trails.dto';
import { TRAILS, trailsProjection } from './trails.projection';
import { TrailTimelineQuery } from './trail-timeline.query';
import { timelinePage } from './trail-timeline';

/** Trails: reported, listed, read now or at an instant, and their timelines. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class TrailsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly history: ReadModelsAt,
    private readonly timeline: TrailTimelineQuery,
    private readonly trailReads: TrailReads,
  ) {}

  @Put('trails/:org/:flow')
  @ApiOperation({ operationId: 'putTrail', summary: 'Create or update a trail' })
  @ApiCreatedOrUpdated(TrailShownView)
  @Requires('member')
  // `begin trail --template-file`: the file is checked as a flow's template is (not kept on the trail).
  @AcceptsDataJson(checkingTemplateFile, {
    files: {
      template_file: { description: 'A template (YAML), checked as a flow template is', required: false },
    },
  })
  async putTrail(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Body() body: PutTrailDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TrailShownView> {
    await this.trailReads.flow(org, flow);
    const trail = {
      flow,
      name: body.name,
      description: body.description ?? '',
      git_commit_info: body.git_commit_info ? { ...body.git_commit_info } : null,
      repo_info: body.repo_info ? { ...body.repo_info } : null,
      origin_url: body.origin_url ?? null,
      user_data: body.user_data ?? {},
      ...(body.external_urls ? { external_urls: body.external_urls } : {}),
    };
    const done = await this.commands.execute(
      new ChangeTrail(org, flow, body.name, { kind: 'put_trail', trail }, requestMetadata(req)),
    );
    res.status(done.events[0]?.type === 'trail_reported' ? 201 : 200);
    const { view, template } = await this.trailReads.trailView(org, flow, body.name, undefined);
    return {
      ...trailAsShown(view, template),
      events: await this.timeline.kosliEvents(org, flow, body.name),
      html_url: trailUrl(req, org, flow, body.name),
    };
  }

  @Get('trails/:org')
  @ApiOperation({
    operationId: 'listOrganizationTrails',
    summary: "List the organization's trails with their compliance",
  })
  @Requires('reader')
  @ApiOkResponse({
    type: OrganizationTrailsPage,
    description: '{data: [trail with compliance_state], pagination: {page, page_count, total}}',
  })
  async listOrganizationTrails(
    @Param('org') org: string,
    @Query() query: TrailsQuery,
  ): Promise<OrganizationTrailsPage> {
    const reads = await this.history.readsFor(query.at, {
      org,
      projections: [flowsProjection, trailsProjection],
      within: query.flow,
    });
    const flows = query.flow
      ? await flowsNamed(docReads(reads), org, [query.flow])
      : await flowsOf(docReads(reads), org);
    const [tagKey, tagValue] = query.flow_tag ? splitOnce(query.flow_tag, '=') : [];
    const chosen = new Map(
      flows
        .filter((f) => tagKey === undefined || tagsOf(f.tags)[tagKey] === tagValue)
        .map((f) => [f.name, f]),
    );
    const filter = {
      org,
      flow: { $in: [...chosen.keys()] },
      ...(query.fingerprint ? { 'artifacts.fingerprint': query.fingerprint } : {}),
    };
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 20;
    const collection = reads.collection(TRAILS);
    const { total, docs } = await collection.findPage(filter, {
      sort: { created_at: -1, flow: 1, name: 1 },
      skip: (page - 1) * perPage,
      limit: perPage,
    });
    const data = docs.map((d) => {
      const view = withoutInternals(d) as unknown as TrailView;
      const template = chosen.get(view.flow)?.template as FlowTemplate | null;
      return { flow: view.flow, ...trailSummary(view, template) };
    });
    return { data, pagination: { page, page_count: Math.ceil(total / perPage), total, per_page: perPage } };
  }

  @Get('trails/:org/:flow')
  @ApiOperation({ operationId: 'listTrails', summary: "List a flow's trails" })
  @Requires('reader')
  @ApiOkResponse({ type: [TrailSummaryView] })
  async listTrails(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Query() { at }: AtQuery,
  ): Promise<TrailSummaryView[]> {
    const reads = await this.trailReads.flowReadsAt(org, flow, at);
    const template = (await this.trailReads.flow(org, flow, reads)).template as FlowTemplate | null;
    const docs = await reads.collection(TRAILS).find({ org, flow }, { sort: { created_at: -1 } });
    return docs.map((d) => trailSummary(withoutInternals(d) as unknown as TrailView, template));
  }

  @Get('trails/:org/:flow/:trail')
  @ApiOperation({ operationId: 'getTrail', summary: 'Read a trail' })
  @Requires('reader')
  @ApiOkResponse({ type: TrailShownView })
  @ApiQuery({
    name: 'at',
    required: false,
    description: 'UNIX seconds: the trail as it was at that recorded instant',
  })
  async readTrail(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Query() query: AtQuery,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const { view, template } = await this.trailReads.trailView(org, flow, trail, query.at);
    const shown: TrailShownView = {
      ...trailAsShown(view, template),
      events: await this.timeline.kosliEvents(org, flow, trail, query.at),
      html_url: trailUrl(req, org, flow, trail, query.at),
    };
    // A trail of many large attestations is tens of MB of JSON: written in slices, not in one go.
    await sendJson(res, shown);
  }

  @Get('trails/:org/:flow/:trail/events')
  @ApiOperation({ operationId: 'listTrailEvents', summary: "List a trail's timeline, a page at a time" })
  @Requires('reader')
  @ApiOkResponse({
    type: TrailEventsPage,
    description:
      "The trail's timeline, oldest first, a page at a time: {events: [{seq, type, timestamp, summary}], page, per_page, total_pages, total_count, _links}",
  })
  async trailEvents(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Query() query: PageQuery,
    @Req() req: AuthenticatedRequest,
  ): Promise<TrailEventsPage> {
    const total = (await this.trailReads.trailView(org, flow, trail, query.at)).view.event_count;
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 20;
    const entries = await this.timeline.entries(
      org,
      flow,
      trail,
      timelinePage(total, page, perPage),
      query.at,
    );
    const { items, ...page_ } = paged(entries, {
      page,
      perPage,
      total,
      base: req.originalUrl.split('?')[0],
      query: query.at === undefined ? {} : { at: String(query.at) },
    });
    return { events: items, ...page_ };
  }
}

/** A trail as the trail lists show it: its fields and its compliance (whole, and its status as the Kosli CLI reads it). */
function trailSummary(view: TrailView, template: FlowTemplate | null): TrailSummaryView {
  const compliance = trailCompliance(view, template);
  return {
    name: view.name,
    description: view.description,
    git_commit_info: view.git_commit_info,
    created_at: view.created_at,
    last_modified_at: view.last_modified_at,
    compliance_status: compliance,
    compliance_state: compliance.status,
  };
}

function splitOnce(text: string, separator: string): [string, string] {
  const i = text.indexOf(separator);
  return [text.slice(0, i), text.slice(i + separator.length)];
}
