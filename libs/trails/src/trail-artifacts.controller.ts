import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { AcceptsDataJson, ApiError, AtQuery, READ_STORE, Requires, workspaceUrl } from '#des/platform';
import { type Doc, docReads, type ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { definedOnly } from './attestation-types';
import { ChangeTrail } from './trail.commands';
import { TrailReads } from './trail-reads';
import { trailNamed } from './trails.queries';
import { ReportArtifactDto, ReportedArtifactView } from './trails.dto';
import type { ArtifactView } from './trail.view';
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
  @ApiCreatedResponse({ type: ReportedArtifactView, description: 'The artifact, as reported' })
  async reportArtifact(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Body() body: ReportArtifactDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ReportedArtifactView> {
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
      // A JSON null for an object is no object (class-validator's IsOptional lets null through).
      ...definedOnly({
        repo_url: body.repo_url,
        external_urls: body.external_urls ?? undefined,
        annotations: body.annotations ?? undefined,
        user_data: body.user_data ?? undefined,
        commits_list: body.commits_list?.map((c) => ({ ...c })),
      }),
    };
    // An artifact reported to a trail that has not begun begins it, as the Kosli CLI expects
    // (`kosli attest artifact --trail new`); without a trail (`kosli report artifact`), its own.
    const trailName = body.trail_name ?? body.fingerprint;
    const begins = {
      flow,
      name: trailName,
      description: '',
      git_commit_info: artifact.git_commit_info,
      repo_info: artifact.repo_info,
      origin_url: artifact.build_url,
      user_data: {},
    };
    await this.commands.execute(
      new ChangeTrail(
        org,
        flow,
        trailName,
        { kind: 'report_artifact', artifact, begins },
        requestMetadata(req),
      ),
    );
    res.status(201);
    return this.artifact(req, org, flow, body.fingerprint);
  }

  @Get('artifacts/:org/:flow/:fingerprint')
  @ApiOperation({ operationId: 'getArtifact', summary: 'Read an artifact' })
  @Requires('reader')
  @ApiOkResponse({ type: ReportedArtifactView })
  async readArtifact(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('fingerprint') fingerprint: string,
    @Query() { at }: AtQuery,
    @Req() req: Request,
  ): Promise<ReportedArtifactView> {
    const reads = await this.trailReads.flowReadsAt(org, flow, at);
    await this.trailReads.flow(org, flow, reads);
    return this.artifact(req, org, flow, fingerprint, reads, at);
  }

  private async artifact(
    req: Request,
    org: string,
    flow: string,
    fingerprint: string,
    reads: ReadStore = this.reads,
    at?: number,
  ): Promise<ReportedArtifactView> {
    const doc = await reads.collection(ARTIFACTS).findOne({ _id: artifactId(org, flow, fingerprint) });
    if (!doc) throw new ApiError(404, 'Artifact not found');
    const trail = await trailNamed(docReads(reads), org, flow, doc.trail as string);
    const inTrail = trail?.artifacts.find((a) => a.fingerprint === fingerprint);
    const htmlUrl = workspaceUrl(req, [org, 'flows', flow, 'artifacts', fingerprint], at);
    return reportedArtifactView(doc, inTrail, htmlUrl);
  }
}

/** An artifact's document (what was reported, by which flow and trail) with what its trail holds of it. */
function reportedArtifactView(
  doc: Doc,
  inTrail: ArtifactView | undefined,
  htmlUrl: string,
): ReportedArtifactView {
  return {
    org: doc.org as string,
    flow: doc.flow as string,
    trail: doc.trail as string,
    fingerprint: doc.fingerprint as string,
    filename: doc.filename as string,
    git_commit: doc.git_commit as ReportedArtifactView['git_commit'],
    git_commit_info: doc.git_commit_info as ReportedArtifactView['git_commit_info'],
    build_url: doc.build_url as ReportedArtifactView['build_url'],
    commit_url: doc.commit_url as ReportedArtifactView['commit_url'],
    repo_info: doc.repo_info as ReportedArtifactView['repo_info'],
    template_reference_name: doc.template_reference_name as ReportedArtifactView['template_reference_name'],
    repo_url: doc.repo_url as ReportedArtifactView['repo_url'],
    external_urls: doc.external_urls as ReportedArtifactView['external_urls'],
    annotations: doc.annotations as ReportedArtifactView['annotations'],
    user_data: doc.user_data as ReportedArtifactView['user_data'],
    commits_list: doc.commits_list as ReportedArtifactView['commits_list'],
    reported_at: doc.reported_at as number,
    attestations: inTrail?.attestations ?? {},
    running: inTrail?.running ?? [],
    exited: inTrail?.exited ?? [],
    html_url: htmlUrl,
  };
}
