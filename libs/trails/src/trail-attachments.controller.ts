import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiError, AtQuery, AttachmentStore, Requires, sendStream } from '#des/platform';
import type { AttachmentRef } from './trail.events';
import { TrailReads } from './trail-reads';
import type { TrailView } from './trail.view';

const SHA256 = '^[0-9a-f]{64}$';

/** Every file the trail's attestations (its own and its artifacts') hold, as the trail was then. */
export function attachmentsOf(view: TrailView): AttachmentRef[] {
  const attestations = [
    ...Object.values(view.attestations),
    ...view.artifacts.flatMap((a) => Object.values(a.attestations)),
  ];
  return attestations.flatMap((a) => a.attachments ?? []);
}

/**
 * The files sent with a trail's evidence. The store is content-addressed and
 * shared, so a file is served only through a trail of the caller's
 * organization whose attestations name it.
 */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class TrailAttachmentsController {
  constructor(
    private readonly attachments: AttachmentStore,
    private readonly trailReads: TrailReads,
  ) {}

  @Get('trails/:org/:flow/:trail/attachments/:sha256')
  @ApiOperation({
    operationId: 'getTrailAttachment',
    summary: "Download a file attached to one of the trail's attestations",
  })
  @Requires('reader')
  @ApiParam({
    name: 'sha256',
    description: 'The SHA-256 of its content, hex',
    schema: { type: 'string', pattern: SHA256 },
  })
  @ApiOkResponse({
    description: 'The file as it was sent, under the name it was sent with',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  async attachment(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Param('sha256') sha256: string,
    @Query() { at }: AtQuery,
    @Res() res: Response,
  ) {
    const { view } = await this.trailReads.trailView(org, flow, trail, at);
    const file = new RegExp(SHA256).test(sha256)
      ? attachmentsOf(view).find((a) => a.sha256 === sha256)
      : undefined;
    if (!file) throw new ApiError(404, 'Attachment not found');
    const kept = await this.attachments.open(sha256);
    if (!kept) throw new ApiError(404, 'Attachment not found');
    res
      .status(200)
      .type('application/octet-stream')
      .setHeader('Content-Length', String(kept.size))
      .setHeader('Content-Disposition', `attachment; filename="${file.filename.replace(/[^\w.-]/g, '_')}"`)
      .setHeader('Cache-Control', 'private, max-age=31536000, immutable');
    await sendStream(res, kept.stream);
  }
}
