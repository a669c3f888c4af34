import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { PdfRenderer } from '#des/reports';
import {
  ApiFileResponse,
  AtQuery,
  EVENT_STORE,
  PDF_RENDERER,
  pinnedNow,
  READ_STORE,
  Requires,
} from '#des/platform';
import type { ReadStore } from '#des/read-store';
import { checkpointCovering } from '#des/ledger';
import { type EventStore, secondsToMicros } from '#des/event-store';
import { unixMicros } from '#des/kernel';
import { trailAuditHtml, trailReportFrame } from './trail-audit-report';
import { TrailReads } from './trail-reads';
import { trailCompliance } from './trail.view';
import { TrailTimelineQuery } from './trail-timeline.query';

/** The audit PDF prints at most this many timeline entries (the latest); the rest are a page away in the API. */
const PDF_TIMELINE_ENTRIES = 2_000;

/** A trail's audit report, as PDF. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class TrailAuditController {
  constructor(
    @Inject(PDF_RENDERER) private readonly pdf: PdfRenderer,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly timeline: TrailTimelineQuery,
    private readonly trailReads: TrailReads,
  ) {}

  /** Endpoint 13: the trail audit report as PDF. */
  @Get('trails/:org/:flow/:trail/audit_pdf')
  @ApiOperation({ operationId: 'getTrailAuditPdf', summary: "Download a trail's audit report as PDF" })
  @Requires('reader')
  @ApiProduces('application/pdf')
  @ApiFileResponse('application/pdf', 'The trail audit report, at the instant it prints')
  async auditPdf(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Query() { at }: AtQuery,
    @Res() res: Response,
  ) {
    // The report shows one exact instant, to the microsecond: the one asked for, or now. Its
    // ledger head is the one `GET /ledger/{org}/head?at=<that instant>` answers.
    const generatedAt = Date.now() / 1000;
    const asOf = at ?? (await pinnedNow(this.events));
    const { view, template } = await this.trailReads.trailView(
      org,
      flow,
      trail,
      asOf,
      'Flow or trail not found',
    );
    const total = view.event_count;
    const range = { from: Math.max(0, total - PDF_TIMELINE_ENTRIES), until: total };
    const [entries, ledger, checkpoint] = await Promise.all([
      this.timeline.entries(org, flow, trail, range, asOf),
      this.events.ledgerHead(org, { untilRecordedAt: secondsToMicros(asOf) }),
      checkpointCovering(this.events, this.reads, org, asOf),
    ]);
    const timeline = {
      entries,
      total,
      rest: `/api/v2/trails/${org}/${flow}/${trail}/events?at=${unixMicros(asOf)}`,
    };
    const pdf = await this.pdf.render(
      trailAuditHtml(view, trailCompliance(view, template), asOf, generatedAt, ledger, timeline, checkpoint),
      trailReportFrame(view, asOf),
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
}
