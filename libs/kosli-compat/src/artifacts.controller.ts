import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { ApiError, CONFIG, type Config, kosliAppUrl, PageQuery, READ_STORE, Requires } from '#des/platform';
import { flowNamed } from '#des/flows';
import { repoNamedOrIdentified, repoNotFound } from '#des/repos';
import { docReads, type ReadStore } from '#des/read-store';
import {
  type ArtifactReport,
  artifactReports,
  artifactReportsByPrefix,
  latestArtifactReports,
  latestCommitInFlow,
  type RunningData,
} from '#des/trails';
import { artifactHistory } from './artifact-history';
import { type Provenance, provenancesOfReports } from './artifact-provenance';
import { KosliArtifact, KosliLatestCommit, KosliSearchResult } from './kosli.dto';

const SHA_PREFIX = /^[0-9a-fA-F]{4,64}$/;

class ArtifactLookupQuery {
  @ApiPropertyOptional({ description: 'Only the artifacts of this trail' })
  @IsOptional()
  @IsString()
  trail?: string;
}

class LatestCommitQuery {
  @ApiPropertyOptional({ description: 'Only artifacts built on this branch' })
  @IsOptional()
  @IsString()
  branch?: string;
}

class ArtifactsQuery extends PageQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() flow_name?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() repo_name?: string;
}

/**
 * Artifacts as the Kosli CLI lists, gets and searches them: `GET
 * /artifacts/{org}`, `/artifacts/{org}/{flow}/fingerprint/{fp}` (or
 * `/commit/{sha}`) and `/search/{org}/sha/{prefix}`.
 */
@ApiTags('kosli cli')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class ArtifactsController {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get('artifacts/:org')
  @ApiOperation({ operationId: 'listKosliArtifacts', summary: 'List the latest artifacts for the Kosli CLI' })
  @Requires('reader')
  @ApiOkResponse({ type: [KosliArtifact], description: 'A page of artifacts, newest first' })
  async list(
    @Param('org') org: string,
    @Query() query: ArtifactsQuery,
    @Req() req: Request,
  ): Promise<KosliArtifact[]> {
    const perPage = query.per_page ?? 20;
    const reads = docReads(this.reads);
    if (query.flow_name && !(await flowNamed(reads, org, query.flow_name)))
      throw new ApiError(404, 'Flow not found');
    // A name several repositories share is a filter still: only one no repository has is refused.
    const repo = query.repo_name ? await repoNamedOrIdentified(reads, org, query.repo_name) : null;
    if (repo && !repo.found && repo.reason === 'none')
      throw new ApiError(404, repoNotFound(query.repo_name!));
    const docs = await latestArtifactReports(
      this.reads,
      org,
      { flow: query.flow_name, repo: query.repo_name },
      { skip: ((query.page ?? 1) - 1) * perPage, limit: perPage },
    );
    return this.kosliArtifacts(req, org, docs);
  }

  // Before `:kind/:id`, which its path would match too.
  @Get('artifacts/:org/:flow/:fingerprint/latest_commit')
  @ApiOperation({
    operationId: 'getLatestCommit',
    summary: 'The commit of the artifact a flow reported last, for the Kosli CLI',
    description:
      '`kosli report artifact` lists the commits since it. Artifacts other than `{fingerprint}`; null when there is none.',
  })
  @Requires('reader')
  @ApiOkResponse({ type: KosliLatestCommit })
  async latestCommit(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('fingerprint') fingerprint: string,
    @Query() { branch }: LatestCommitQuery,
  ): Promise<KosliLatestCommit> {
    if (!(await flowNamed(docReads(this.reads), org, flow))) throw new ApiError(404, 'Flow not found');
    return {
      latest_commit: await latestCommitInFlow(this.reads, org, flow, { except: fingerprint, branch }),
    };
  }

  @Get('artifacts/:org/:flow/:kind/:id')
  @ApiOperation({
    operationId: 'getKosliArtifact',
    summary: "Read a flow's artifacts by fingerprint or commit for the Kosli CLI",
    description:
      '`{kind}`: `fingerprint`, or `commit_sha` (`commit`) with a full or short sha; `?trail=` keeps one trail’s.',
  })
  @Requires('reader')
  @ApiParam({ name: 'kind', enum: ['fingerprint', 'commit_sha', 'commit'] })
  @ApiOkResponse({
    type: [KosliArtifact],
    description: 'The artifacts of the flow with that fingerprint or commit',
  })
  async read(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('kind') kind: string,
    @Param('id') id: string,
    @Query() { trail }: ArtifactLookupQuery,
    @Req() req: Request,
  ): Promise<KosliArtifact[]> {
    const byCommit = kind === 'commit' || kind === 'commit_sha';
    if (kind !== 'fingerprint' && !byCommit) throw new ApiError(404, 'Artifact not found');
    const sha = id.toLowerCase();
    const docs = await artifactReports(
      docReads(this.reads),
      org,
      !byCommit
        ? { flow, trail, fingerprints: [id] }
        : sha.length >= 40
          ? { flow, trail, commit: sha }
          : { flow, trail, commitPrefix: sha },
    );
    if (!docs.length) throw new ApiError(404, 'Artifact not found');
    return this.kosliArtifacts(req, org, docs);
  }

  @Get('search/:org/sha/:prefix')
  @ApiOperation({
    operationId: 'searchKosliArtifacts',
    summary: 'Find artifacts by a fingerprint or commit prefix for the Kosli CLI',
  })
  @Requires('reader')
  @ApiParam({ name: 'prefix', schema: { type: 'string', pattern: SHA_PREFIX.source } })
  @ApiOkResponse({
    type: KosliSearchResult,
    description: '{resolved_to, artifacts}: the fingerprints and commits the prefix matches',
  })
  async search(
    @Param('org') org: string,
    @Param('prefix') prefix: string,
    @Req() req: Request,
  ): Promise<KosliSearchResult> {
    if (!SHA_PREFIX.test(prefix))
      throw new ApiError(400, 'Input payload validation failed', { sha: 'a sha is 4 to 64 hex digits' });
    const { byFingerprint, byCommit } = await artifactReportsByPrefix(this.reads, org, prefix.toLowerCase());
    const fingerprints = [...new Set(byFingerprint.map((d) => d.fingerprint as string))];
    const commits = [...new Set(byCommit.map((d) => d.git_commit as string))];
    const type: KosliSearchResult['resolved_to']['type'] =
      fingerprints.length === 1 && !commits.length
        ? 'fingerprint'
        : commits.length === 1 && !fingerprints.length
          ? 'commit'
          : 'mixed';
    if (!fingerprints.length && !commits.length) throw new ApiError(404, `No matches for '${prefix}'.`);
    // The newest artifacts, at most `kosliSearchArtifacts` of them: the answer is bounded whatever the prefix
    // matches (a commit of a trail with thousands of artifacts); the counts and matches above stay whole.
    const docs = [...new Map([...byFingerprint, ...byCommit].map((d) => [d._id, d])).values()]
      .sort(newestFirst)
      .slice(0, this.config.kosliSearchArtifacts);
    const artifacts = (await this.kosliArtifacts(req, org, docs)).map((view) => ({
      ...view,
      name: view.filename,
      flow: view.flow_name,
      has_provenance: true,
      compliance_state: view.state,
      running_in: view.running.map((r) => `${r.environment_name}#${r.snapshot_index}`),
      exited_from: view.exited.map((r) => `${r.environment_name}#${r.snapshot_index}`),
    }));
    return {
      resolved_to: {
        type,
        full_match: type === 'fingerprint' ? fingerprints[0] : type === 'commit' ? commits[0] : '',
        fingerprints: { type: 'fingerprint', count: fingerprints.length, matches: fingerprints },
        commits: { type: 'commit', count: commits.length, matches: commits },
      },
      artifacts,
    };
  }

  /**
   * Artifacts in the shape the CLI prints, their trails and flows read once
   * for all (linear in the artifacts, however many share a trail).
   */
  private async kosliArtifacts(req: Request, org: string, docs: ArtifactReport[]): Promise<KosliArtifact[]> {
    const origins = await provenancesOfReports(this.reads, org, docs);
    const inTrail = trailArtifactsByFingerprint();
    return docs.map((doc, i) => this.kosliArtifact(req, org, doc, origins[i], inTrail));
  }

  /** An artifact in the shape the CLI prints: its flow and trail, its trail's compliance, where it runs and ran. */
  private kosliArtifact(
    req: Request,
    org: string,
    doc: ArtifactReport,
    origin: Provenance,
    trailArtifact: ReturnType<typeof trailArtifactsByFingerprint>,
  ): KosliArtifact {
    const inTrail = trailArtifact(origin, doc.fingerprint);
    const where = (list: RunningData[] | undefined) =>
      (list ?? []).map((r) => ({ environment_name: r.environment, snapshot_index: r.snapshot_index }));
    return {
      filename: doc.filename as string,
      fingerprint: doc.fingerprint as string,
      flow_name: doc.flow as string,
      trail_name: doc.trail as string,
      template_reference_name: (doc.template_reference_name as string | null) ?? null,
      // Seven characters at least: the CLI prints the first seven.
      git_commit: ((doc.git_commit as string | null) || 'unknown').padEnd(7),
      commit_url: (doc.commit_url as string | null) ?? '',
      build_url: (doc.build_url as string | null) ?? '',
      // In the Kosli app's scheme, which the CLI expects; the service redirects it into the workspace.
      html_url: kosliAppUrl(req, [org, 'flows', doc.flow as string, 'artifacts', doc.fingerprint as string], {
        artifact_id: doc.fingerprint as string,
      }),
      // Its trail's compliance: INCOMPLETE while an attestation the template expects is missing.
      state: origin.compliance?.status ?? 'INCOMPLETE',
      created_at: doc.reported_at as number,
      running: where(inTrail?.running as RunningData[] | undefined),
      exited: where(inTrail?.exited as RunningData[] | undefined),
      history: inTrail ? artifactHistory(inTrail) : [],
    };
  }
}

const newestFirst = (a: ArtifactReport, b: ArtifactReport) =>
  b.reported_at - a.reported_at || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

type TrailArtifact = NonNullable<Provenance['view']>['artifacts'][number];

/** An artifact of its trail by fingerprint: each trail's artifacts indexed once, when first asked. */
function trailArtifactsByFingerprint(): (
  origin: Provenance,
  fingerprint: string,
) => TrailArtifact | undefined {
  const indexed = new Map<object, Map<string, TrailArtifact>>();
  return (origin, fingerprint) => {
    const view = origin.view;
    if (!view) return undefined;
    let byFingerprint = indexed.get(view);
    if (!byFingerprint) {
      byFingerprint = new Map();
      for (const a of view.artifacts)
        if (!byFingerprint.has(a.fingerprint)) byFingerprint.set(a.fingerprint, a);
      indexed.set(view, byFingerprint);
    }
    return byFingerprint.get(fingerprint);
  };
}
