import { Body, Controller, Get, Inject, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiBody,
  ApiOkResponse,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { TrailTimeMachine } from './trail-time-machine';
import type { PdfRenderer } from '#des/reports';
import { PDF_RENDERER } from './pdf-renderer.provider';
import { trailAuditHtml } from './trail-audit-report';
import type { Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { tagsOf } from '#des/kernel';
import {
  AcceptsDataJson,
  ApiCreatedOrUpdated,
  ApiError,
  AtQuery,
  AttachmentStore,
  EVENT_STORE,
  paged,
  PageQuery,
  READ_STORE,
  ReadModelsAt,
  Requires,
  uploadedParts,
  stableId,
} from '#des/platform';
import { type EventStore, secondsToMicros } from '#des/event-store';
import { type Doc, docReads, type ReadStore } from '#des/read-store';
import { withoutInternals } from '#des/projections';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import type { FlowTemplate } from '#des/flows';
import { flowNamed, flowsNamed, flowsOf, flowStream } from '#des/flows';
import { definedOnly, parseAttestation } from './attestation-types';
import { attestationTypeNamed, CustomEvaluator } from '#des/attestation-types';
import { ChangeTrail } from './trail.commands';
import { ATTESTATION_TYPES, AttachmentRef, AttestationType } from './trail.events';
import { ArtifactView, trailAsShown, trailCompliance, TrailView } from './trail.view';
import { PutTrailDto, ReportArtifactDto, TrailsQuery } from './trails.dto';
import { ARTIFACTS, artifactId, TRAILS, trailId } from './trails.projection';
import { TrailTimelineQuery } from './trail-timeline.query';
import { timelinePage } from './trail-timeline';

/** The audit PDF prints at most this many timeline entries (the latest); the rest are a page away in the API. */
const PDF_TIMELINE_ENTRIES = 2_000;

/** Trails, the artifacts they built and the attestations made on them. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class TrailsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(PDF_RENDERER) private readonly pdf: PdfRenderer,
    private readonly timeMachine: TrailTimeMachine,
    private readonly history: ReadModelsAt,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly attachments: AttachmentStore,
    private readonly timeline: TrailTimelineQuery,
    private readonly customTypes: CustomEvaluator,
  ) {}

  /** A flow's trails and artifacts now, or (`at`) as its streams made them up to that instant. */
  private flowReadsAt(org: string, flow: string, at: number | undefined): Promise<ReadStore> {
    return this.history.readsFor(at, {
      streams: [flowStream(org, flow)],
      prefixes: [`trail-${org}/${flow}/`],
    });
  }

  @Put('trails/:org/:flow')
  @ApiCreatedOrUpdated()
  @Requires('member')
  @AcceptsDataJson()
  async putTrail(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Body() body: PutTrailDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    await this.flow(org, flow);
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
    const { view, template } = await this.trailView(org, flow, body.name, undefined);
    return trailAsShown(view, template);
  }

  @Get('trails/:org')
  @Requires('reader')
  @ApiOkResponse({
    description: '{data: [trail with compliance_state], pagination: {page, page_count, total}}',
  })
  async listOrganizationTrails(@Param('org') org: string, @Query() query: TrailsQuery) {
    const reads = await this.history.readsFor(
      query.at,
      query.flow
        ? { streams: [flowStream(org, query.flow)], prefixes: [`trail-${org}/${query.flow}/`] }
        : { prefixes: [`flow-${org}/`, `trail-${org}/`] },
    );
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
    const [total, docs] = await Promise.all([
      collection.count(filter),
      collection.find(filter, {
        sort: { created_at: -1, flow: 1, name: 1 },
        skip: (page - 1) * perPage,
        limit: perPage,
      }),
    ]);
    const data = docs.map((d) => {
      const view = withoutInternals(d) as unknown as TrailView;
      const template = chosen.get(view.flow)?.template as FlowTemplate | null;
      return { flow: view.flow, ...trailSummary(view, template) };
    });
    return { data, pagination: { page, page_count: Math.ceil(total / perPage), total, per_page: perPage } };
  }

  @Get('trails/:org/:flow')
  @Requires('reader')
  async listTrails(@Param('org') org: string, @Param('flow') flow: string, @Query() { at }: AtQuery) {
    const reads = await this.flowReadsAt(org, flow, at);
    const template = (await this.flow(org, flow, reads)).template as FlowTemplate | null;
    const docs = await reads.collection(TRAILS).find({ org, flow }, { sort: { created_at: -1 } });
    return docs.map((d) => trailSummary(withoutInternals(d) as unknown as TrailView, template));
  }

  @Get('trails/:org/:flow/:trail')
  @Requires('reader')
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
  ) {
    const { view, template } = await this.trailView(org, flow, trail, query.at);
    return trailAsShown(view, template);
  }

  @Get('trails/:org/:flow/:trail/events')
  @Requires('reader')
  @ApiOkResponse({
    description:
      "The trail's timeline, oldest first, a page at a time: {events: [{seq, type, timestamp, summary}], page, per_page, total_pages, total_count, _links}",
  })
  async trailEvents(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Query() query: PageQuery,
    @Req() req: AuthenticatedRequest,
  ) {
    const total = (await this.trailView(org, flow, trail, query.at)).view.event_count;
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

  /** Endpoint 13: the trail audit report as PDF. */
  @Get('trails/:org/:flow/:trail/audit_pdf')
  @Requires('reader')
  @ApiProduces('application/pdf')
  async auditPdf(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Query() { at }: AtQuery,
    @Res() res: Response,
  ) {
    const now = Date.now() / 1000;
    const { view, template } = await this.trailView(org, flow, trail, at, 'Flow or trail not found');
    const total = view.event_count;
    const range = { from: Math.max(0, total - PDF_TIMELINE_ENTRIES), until: total };
    const [entries, ledger] = await Promise.all([
      this.timeline.entries(org, flow, trail, range, at),
      this.events.ledgerHead(org, { untilRecordedAt: secondsToMicros(at ?? now) }),
    ]);
    const timeline = {
      entries,
      total,
      rest: `/api/v2/trails/${org}/${flow}/${trail}/events${at === undefined ? '' : `?at=${at}`}`,
    };
    const pdf = await this.pdf.render(
      trailAuditHtml(view, trailCompliance(view, template), at ?? now, now, ledger, timeline),
    );
    res
      .status(200)
      .type('application/pdf')
      .setHeader(
        'Content-Disposition',
        `attachment; filename="${`${flow}-${trail}`.replace(/[^\w.-]/g, '_')}-audit.pdf"`,
      );
    res.send(pdf);
  }

  @Post('artifacts/:org/:flow')
  @Requires('member')
  @AcceptsDataJson()
  async reportArtifact(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Body() body: ReportArtifactDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    await this.flow(org, flow);
    const artifact = {
      fingerprint: body.fingerprint,
      filename: body.filename,
      git_commit: body.git_commit ?? body.git_commit_info?.sha1 ?? null,
      git_commit_info: body.git_commit_info ? { ...body.git_commit_info } : null,
      build_url: body.build_url ?? null,
      commit_url: body.commit_url ?? null,
      repo_info: body.repo_info ? { ...body.repo_info } : null,
      template_reference_name: body.template_reference_name ?? null,
      ...definedOnly({
        repo_url: body.repo_url,
        external_urls: body.external_urls,
        annotations: body.annotations,
        user_data: body.user_data,
      }),
    };
    await this.commands.execute(
      new ChangeTrail(
        org,
        flow,
        body.trail_name,
        { kind: 'report_artifact', artifact },
        requestMetadata(req),
      ),
    );
    res.status(201);
    return this.artifact(org, flow, body.fingerprint);
  }

  @Get('artifacts/:org/:flow/:fingerprint')
  @Requires('reader')
  async readArtifact(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('fingerprint') fingerprint: string,
    @Query() { at }: AtQuery,
  ) {
    const reads = await this.flowReadsAt(org, flow, at);
    await this.flow(org, flow, reads);
    return this.artifact(org, flow, fingerprint, reads);
  }

  @Post('attestations/:org/:flow/trail/:trail/:type')
  @Requires('member')
  @AcceptsDataJson()
  @ApiBody({
    description:
      "attestation_name, optional artifact_fingerprint, description, origin_url, user_data, and the type's evidence",
  })
  async attest(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Param('type') type: string,
    @Body() body: unknown,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    if (!(ATTESTATION_TYPES as readonly string[]).includes(type)) {
      throw new ApiError(400, 'Input payload validation failed', {
        type: `unknown attestation type '${type}'; known: ${ATTESTATION_TYPES.join(', ')}`,
      });
    }
    const parsed = parseAttestation(type as AttestationType, body);
    if ('errors' in parsed) throw new ApiError(400, 'Input payload validation failed', parsed.errors);
    await this.flow(org, flow);
    if (type === 'custom') Object.assign(parsed, await this.custom(org, parsed.evidence));
    const attestation = {
      // A retry of an idempotent request that died names the same attestation (recorded once).
      id: stableId('attestation'),
      name: parsed.name,
      type: type as AttestationType,
      compliant: parsed.compliant,
      artifact_fingerprint: parsed.artifactFingerprint,
      description: parsed.description,
      origin_url: parsed.originUrl,
      user_data: parsed.userData,
      evidence: parsed.evidence,
      ...parsed.context,
      ...(await this.keepAttachments(req)),
    };
    await this.commands.execute(
      new ChangeTrail(
        org,
        flow,
        trail,
        { kind: 'report_attestation', attestation, targets: parsed.targets },
        requestMetadata(req),
      ),
    );
    res.status(201);
    const { artifact_fingerprint, ...rest } = attestation;
    return { ...rest, ...(artifact_fingerprint ? { artifact_fingerprint } : {}), flow, trail };
  }

  /** Files sent beside data_json (the CLI's `attachment_file`), kept by content and named on the attestation. */
  private async keepAttachments(req: AuthenticatedRequest): Promise<{ attachments?: AttachmentRef[] }> {
    const parts = uploadedParts(req);
    if (!parts.length) return {};
    const attachments: AttachmentRef[] = [];
    for (const part of parts)
      attachments.push({ filename: part.filename, ...(await this.attachments.adopt(part)) });
    return { attachments };
  }

  /** A custom attestation: its type must exist and be live; compliant when the data passes its schema and jq rules. */
  private async custom(org: string, evidence: Record<string, unknown>) {
    const typeName = evidence.type_name as string;
    const type = await attestationTypeNamed(docReads(this.reads), org, typeName);
    if (!type) throw new ApiError(404, 'Custom attestation type not found');
    if (type.archived) {
      throw new ApiError(400, `Custom attestation type '${typeName}' is archived`, {
        type_name: `'${typeName}' is archived and takes no new attestations`,
      });
    }
    const verdict = await this.customTypes.evaluate(
      org,
      type.schema as Record<string, unknown>,
      type.jq_rules as string[],
      evidence.attestation_data,
    );
    return {
      compliant: verdict.compliant,
      evidence: { ...evidence, schema_errors: verdict.schema_errors, rule_results: verdict.rule_results },
    };
  }

  private async flow(
    org: string,
    flow: string,
    reads: ReadStore = this.reads,
    notFound = 'Flow not found',
  ): Promise<Doc> {
    const doc = await flowNamed(docReads(reads), org, flow);
    if (!doc) throw new ApiError(404, notFound);
    return doc;
  }

  /**
   * The trail's view and its flow's template, now or (`at`) as they were at
   * that instant; 404 `notFound` for either (else the one missing).
   */
  private async trailView(
    org: string,
    flow: string,
    trail: string,
    at: number | undefined,
    notFound?: string,
  ): Promise<{ view: TrailView; template: FlowTemplate | null }> {
    if (at !== undefined) {
      // The trail as it was then: the fold time travel and evaluations use.
      const past = await this.timeMachine.at(org, flow, trail, at);
      if (!past.flowExists) throw new ApiError(404, notFound ?? 'Flow not found');
      if (!past.view) throw new ApiError(404, notFound ?? 'Trail not found');
      return { view: past.view, template: past.template };
    }
    const flowDoc = await this.flow(org, flow, undefined, notFound);
    const doc = await this.reads.collection(TRAILS).findOne({ _id: trailId(org, flow, trail) });
    if (!doc) throw new ApiError(404, notFound ?? 'Trail not found');
    return {
      view: withoutInternals(doc) as unknown as TrailView,
      template: flowDoc.template as FlowTemplate | null,
    };
  }

  private async artifact(org: string, flow: string, fingerprint: string, reads: ReadStore = this.reads) {
    const doc = await reads.collection(ARTIFACTS).findOne({ _id: artifactId(org, flow, fingerprint) });
    if (!doc) throw new ApiError(404, 'Artifact not found');
    const trail = await reads.collection(TRAILS).findOne({ _id: trailId(org, flow, doc.trail as string) });
    const inTrail = (trail?.artifacts as ArtifactView[] | undefined)?.find(
      (a) => a.fingerprint === fingerprint,
    );
    return {
      ...withoutInternals(doc),
      attestations: inTrail?.attestations ?? {},
      running: inTrail?.running ?? [],
      exited: inTrail?.exited ?? [],
    };
  }
}

/** A trail as the trail lists show it: its fields and its compliance (whole, and its status as the Kosli CLI reads it). */
function trailSummary(view: TrailView, template: FlowTemplate | null) {
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
