import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { AcceptsDataJson, ApiError, AtQuery, READ_STORE, Requires } from '#des/platform';
import { docReads, type ReadStore } from '#des/read-store';
import { withoutInternals } from '#des/projections';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { definedOnly } from './attestation-types';
import { ChangeTrail } from './trail.commands';
import { TrailReads } from './trail-reads';
import { trailNamed } from './trails.queries';
import { ReportArtifactDto } from './trails.dto';
import { ARTIFACTS, artifactId } from './trails.projection';

/** The artifacts trails built: reported, and read now or at an instant. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class TrailArtifactsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly trailReads: TrailReads,
  ) {}

  @Post('artifacts/:org/:flow')
  @ApiOperation({ operationId: 'reportArtifact', summary: 'Report an artifact a trail built' })
  @Requires('member')
  @AcceptsDataJson()
  async reportArtifact(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Body() body: ReportArtifactDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    await this.trailReads.flow(org, flow);
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
  @ApiOperation({ operationId: 'getArtifact', summary: 'Read an artifact' })
  @Requires('reader')
  async readArtifact(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('fingerprint') fingerprint: string,
    @Query() { at }: AtQuery,
  ) {
    const reads = await this.trailReads.flowReadsAt(org, flow, at);
    await this.trailReads.flow(org, flow, reads);
    return this.artifact(org, flow, fingerprint, reads);
  }

  private async artifact(org: string, flow: string, fingerprint: string, reads: ReadStore = this.reads) {
    const doc = await reads.collection(ARTIFACTS).findOne({ _id: artifactId(org, flow, fingerprint) });
    if (!doc) throw new ApiError(404, 'Artifact not found');
    const trail = await trailNamed(docReads(reads), org, flow, doc.trail as string);
    const inTrail = trail?.artifacts.find((a) => a.fingerprint === fingerprint);
    return {
      ...withoutInternals(doc),
      attestations: inTrail?.attestations ?? {},
      running: inTrail?.running ?? [],
      exited: inTrail?.exited ?? [],
    };
  }
}
