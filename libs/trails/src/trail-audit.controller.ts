import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiFileResponse, AtQuery, EVENT_STORE, Heavy, pinnedNow, Requires } from '#des/platform';
import type { EventStore } from '#des/event-store';
import { TrailAuditPdf, trailFileName } from './trail-audit-pdf';

/** A trail's audit report, as PDF. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class TrailAuditController {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly report: TrailAuditPdf,
  ) {}

  /** Endpoint 13: the trail audit report as PDF. */
  @Get('trails/:org/:flow/:trail/audit_pdf')
  @Heavy()
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
    // The report shows one exact instant, to the microsecond: the one asked for, or now.
    const asOf = at ?? (await pinnedNow(this.events));
    const pdf = await this.report.render(org, flow, trail, asOf);
    res
      .status(200)
      .type('application/pdf')
      .setHeader('Content-Disposition', `attachment; filename="${trailFileName(flow, trail, 'audit.pdf')}"`);
    res.send(pdf);
  }
}
