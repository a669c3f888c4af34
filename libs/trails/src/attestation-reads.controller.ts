import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiError, AtQuery, ReadModelsAt, Requires } from '#des/platform';
import { type Doc, docReads } from '#des/read-store';
import { flowsProjection } from '#des/flows';
import { withoutInternals } from '#des/projections';
import {
  ATTESTATIONS,
  attestationDocId,
  type AttestationRecord,
  attestationsProjection,
} from './attestations.projection';
import { TrailReads } from './trail-reads';
import { trailUrl } from './trail-url';
import { AttestationByIdQuery, RecordedAttestationsPage, RecordedAttestationView } from './trails.dto';
import { trailNamed } from './trails.queries';
import { trailsProjection } from './trails.projection';

const FINGERPRINT = /^[0-9a-f]{64}$/;

/** Attestations read one at a time: by id, or every one of a name on a trail or an artifact. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class AttestationReadsController {
  constructor(
    private readonly history: ReadModelsAt,
    private readonly trailReads: TrailReads,
  ) {}

  @Get('attestations/:org')
  @ApiOperation({
    operationId: 'getAttestationById',
    summary: 'An attestation by its id, in a list (`data`: empty when there is none)',
  })
  @Requires('reader')
  @ApiOkResponse({ type: RecordedAttestationsPage })
  async byId(
    @Param('org') org: string,
    @Query() { at, attestation_id }: AttestationByIdQuery,
    @Req() req: Request,
  ): Promise<RecordedAttestationsPage> {
    const reads = await this.history.readsFor(at, { org, projections: [attestationsProjection] });
    const doc = await reads.collection(ATTESTATIONS).findOne({ _id: attestationDocId(org, attestation_id) });
    return { data: doc ? [recorded(req, doc)] : [] };
  }

  @Get('attestations/:org/:flow/trail/:trail/:name')
  @ApiOperation({
    operationId: 'getTrailAttestationsNamed',
    summary:
      "Every attestation of a name on a trail (not its artifacts'), oldest first; empty when there is none",
  })
  @Requires('reader')
  @ApiOkResponse({ type: [RecordedAttestationView] })
  async onTrail(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Param('name') name: string,
    @Query() { at }: AtQuery,
    @Req() req: Request,
  ): Promise<RecordedAttestationView[]> {
    const reads = await this.history.readsFor(at, {
      org,
      projections: [flowsProjection, trailsProjection, attestationsProjection],
      within: flow,
    });
    await this.trailReads.flow(org, flow, reads);
    if (!(await trailNamed(docReads(reads), org, flow, trail))) throw notFound('Trail not found');
    const docs = await reads
      .collection(ATTESTATIONS)
      .find({ org, flow, trail, name, artifact_fingerprint: null }, { sort: { reported_at: 1 } });
    return docs.map((d) => recorded(req, d));
  }

  @Get('attestations/:org/:flow/artifact/:fingerprint/:name')
  @ApiOperation({
    operationId: 'getArtifactAttestationsNamed',
    summary: "Every attestation of a name on an artifact (in any of the flow's trails), oldest first",
  })
  @Requires('reader')
  @ApiOkResponse({ type: [RecordedAttestationView] })
  async onArtifact(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('fingerprint') fingerprint: string,
    @Param('name') name: string,
    @Query() { at }: AtQuery,
    @Req() req: Request,
  ): Promise<RecordedAttestationView[]> {
    const reads = await this.history.readsFor(at, {
      org,
      projections: [flowsProjection, attestationsProjection],
      within: flow,
    });
    await this.trailReads.flow(org, flow, reads);
    if (!FINGERPRINT.test(fingerprint)) return [];
    const docs = await reads
      .collection(ATTESTATIONS)
      .find({ org, flow, artifact_fingerprint: fingerprint, name }, { sort: { reported_at: 1 } });
    return docs.map((d) => recorded(req, d));
  }
}

const notFound = (message: string) => new ApiError(404, message);

/** An attestation in Kosli's field names, its evidence fields beside them. */
function recorded(req: Request, doc: Doc): RecordedAttestationView {
  const a = withoutInternals(doc) as unknown as AttestationRecord;
  return {
    ...a.evidence,
    attestation_id: a.id,
    attestation_name: a.name,
    attestation_type: a.type,
    is_compliant: a.compliant,
    ...(a.artifact_fingerprint ? { artifact_fingerprint: a.artifact_fingerprint } : {}),
    created_at: a.reported_at,
    flow_name: a.flow,
    trail_name: a.trail,
    description: a.description,
    origin_url: a.origin_url,
    user_data: a.user_data,
    evidence: a.evidence,
    ...(a.git_commit_info ? { git_commit_info: a.git_commit_info } : {}),
    ...(a.repo_info ? { repo_info: a.repo_info } : {}),
    ...(a.external_urls ? { external_urls: a.external_urls } : {}),
    ...(a.annotations ? { annotations: a.annotations } : {}),
    ...(a.attachments ? { attachments: a.attachments } : {}),
    html_url: trailUrl(req, a.org, a.flow, a.trail),
  };
}
