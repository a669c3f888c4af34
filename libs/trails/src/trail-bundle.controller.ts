import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { type EventStore } from '#des/event-store';
import { flowStream } from '#des/flows';
import { type BundleFile, EvidenceBundles, jsonFile } from '#des/ledger';
import {
  ApiError,
  ApiFileResponse,
  AtQuery,
  AttachmentStore,
  EVENT_STORE,
  Heavy,
  pinnedNow,
  Requires,
  sendStream,
} from '#des/platform';
import { attachmentsOf } from './trail-attachments.controller';
import { TrailAuditPdf, trailFileName } from './trail-audit-pdf';
import { TrailReads } from './trail-reads';
import { trailUrl } from './trail-url';
import { trailStream } from './trail.events';
import { trailAsShown } from './trail.view';

/** A trail's evidence bundle: its record, audit PDF, attachments and proven events, verifiable offline. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class TrailBundleController {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly trailReads: TrailReads,
    private readonly report: TrailAuditPdf,
    private readonly attachments: AttachmentStore,
    private readonly bundles: EvidenceBundles,
  ) {}

  @Get('trails/:org/:flow/:trail/bundle')
  @Heavy()
  @ApiOperation({
    operationId: 'getTrailBundle',
    summary: "Download a trail's evidence bundle (zip), verifiable offline with the verify.mjs it holds",
  })
  @Requires('reader')
  @ApiProduces('application/zip')
  @ApiFileResponse(
    'application/zip',
    'manifest.json and its signature, the trail record, its audit PDF, its attachments, its events with their inclusion proofs, the checkpoint, the key and verify.mjs',
  )
  async bundle(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Query() { at }: AtQuery,
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
  ) {
    const asOf = at ?? (await pinnedNow(this.events));
    const { view, template } = await this.trailReads.trailView(
      org,
      flow,
      trail,
      asOf,
      'Flow or trail not found',
    );
    const files: BundleFile[] = [
      await jsonFile('records/trail.json', {
        ...trailAsShown(view, template),
        html_url: trailUrl(req, org, flow, trail, asOf),
      }),
      {
        path: 'reports/trail-audit.pdf',
        bytes: await this.report.render(org, flow, trail, asOf, { view, template }),
      },
    ];
    const seen = new Set<string>();
    for (const file of attachmentsOf(view)) {
      if (seen.has(file.sha256)) continue;
      seen.add(file.sha256);
      const { sha256 } = file;
      const size = await this.attachments.sizeOf(sha256);
      if (size === null) throw missing(sha256);
      files.push({
        path: `attachments/${sha256}/${file.filename.replace(/[^\w.-]/g, '_')}`,
        sha256,
        size,
        open: async () => (await this.attachments.open(sha256))?.stream ?? Promise.reject(missing(sha256)),
      });
    }
    const zip = await this.bundles.export({
      org,
      subject: { kind: 'trail', flow, trail },
      at: asOf,
      streams: [flowStream(org, flow), trailStream(org, flow, trail)],
      files,
      metadata: requestMetadata(req),
    });
    res
      .status(200)
      .type('application/zip')
      .setHeader('Content-Length', String(zip.size))
      .setHeader('Content-Disposition', `attachment; filename="${trailFileName(flow, trail, 'bundle.zip')}"`);
    await sendStream(res, zip.stream());
  }
}

const missing = (sha256: string) =>
  new ApiError(500, `Attachment ${sha256} is missing from the attachment store`);
