import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { environmentNamed, snapshotNamed } from '#des/environments';
import { ApiError, READ_STORE, Requires, workspaceUrl } from '#des/platform';
import { docReads, type ReadStore } from '#des/read-store';
import { type Provenance, provenanceOf } from './artifact-provenance';
import { KosliAssertion, type KosliAttestationStatus } from './kosli.dto';

class AssertQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() flow_name?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() environment_name?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsString({ each: true })
  policy_name?: string | string[];
}

/** The attestations a trail asks for and has, for the artifact: made ones with their verdict, missing ones. */
function attestationStatuses(p: Provenance, fingerprint: string): KosliAttestationStatus[] {
  if (!p.view || !p.compliance) return [];
  const artifact = p.view.artifacts.find((a) => a.fingerprint === fingerprint);
  const made = [...Object.values(p.view.attestations), ...Object.values(artifact?.attestations ?? {})];
  return [
    ...made.map((a): KosliAttestationStatus => ({
      attestation_name: a.name,
      attestation_type: a.type,
      status: 'COMPLETE',
      is_compliant: a.compliant,
      unexpected: false,
    })),
    ...p.compliance.missing.map((name): KosliAttestationStatus => ({
      attestation_name: name,
      attestation_type: '',
      status: 'MISSING',
      is_compliant: false,
      unexpected: false,
    })),
  ];
}

/**
 * `kosli assert artifact`: is an artifact (by fingerprint) compliant in its
 * flows, or (`environment_name`) compliant and running in the environment's
 * latest snapshot, itself compliant. In the shape the CLI decodes.
 */
@ApiTags('kosli cli')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('asserts')
export class AssertsController {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  @Get(':org/fingerprint/:fingerprint')
  @ApiOperation({
    operationId: 'assertKosliArtifact',
    summary: 'Check that an artifact is compliant, in its flows or in an environment, for the Kosli CLI',
  })
  @Requires('reader')
  @ApiOkResponse({
    type: KosliAssertion,
    description: '{compliant, scope, environment?, policy_evaluations, flows, html_url}',
  })
  async artifact(
    @Param('org') org: string,
    @Param('fingerprint') fingerprint: string,
    @Query() query: AssertQuery,
    @Req() req: Request,
  ): Promise<KosliAssertion> {
    const provenance = await provenanceOf(this.reads, org, fingerprint, query.flow_name);
    if (!provenance.length) throw new ApiError(404, 'Artifact not found');
    let compliant = provenance.every((p) => p.compliant);
    const scope = query.environment_name ? 'environment' : 'flow';
    if (query.environment_name)
      compliant = compliant && (await this.runsCompliant(org, query.environment_name, fingerprint));
    return {
      compliant,
      scope,
      ...(query.environment_name ? { environment: query.environment_name } : {}),
      policy_evaluations: [],
      flows: provenance.map((p) => ({
        flow: p.flow,
        trail: p.trail,
        compliance_status: {
          status: p.compliance?.status ?? 'INCOMPLETE',
          attestations_statuses: attestationStatuses(p, fingerprint),
        },
      })),
      html_url: query.environment_name
        ? workspaceUrl(req, [org, 'environments', query.environment_name])
        : workspaceUrl(req, [org, 'flows', provenance[0].flow, 'trails', provenance[0].trail]),
    };
  }

  /** Whether the artifact runs in the environment's latest snapshot and that snapshot is compliant. */
  private async runsCompliant(org: string, env: string, fingerprint: string): Promise<boolean> {
    const environment = await environmentNamed(docReads(this.reads), org, env);
    if (!environment) throw new ApiError(404, 'Environment not found');
    const latest = environment.latest_snapshot as number | undefined;
    if (!latest) return false;
    const snapshot = await snapshotNamed(docReads(this.reads), org, env, latest);
    const running = (snapshot?.artifacts as { fingerprint: string }[] | undefined) ?? [];
    return snapshot?.compliant === true && running.some((a) => a.fingerprint === fingerprint);
  }
}
