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
import { environmentNamed } from '#des/environments';
import { flowNamed } from '#des/flows';
import { tagsOf } from '#des/kernel';
import {
  type ArtifactFacts,
  evaluatePolicy,
  latestPolicies,
  type NamedPolicy,
  policyAttestationType,
} from '#des/policies';
import { ApiError, kosliAppUrl, READ_STORE, Requires } from '#des/platform';
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
 * flows, or by the policies attached to an environment (`environment_name`)
 * or named (`policy_name`, repeatable), each rule's verdict given as the CLI
 * prints it. As the environments judge what runs (ADR 0020): where policies
 * judge, their decision is the compliance; without any, the trails'.
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
    summary: 'Check that an artifact is compliant, in its flows or by policies, for the Kosli CLI',
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
    const { scope, policies } = await this.judges(org, query);
    const facts = await this.facts(org, fingerprint, provenance);
    const evaluations = policies.map((p) => evaluatePolicy(p, facts));
    const compliant = evaluations.length
      ? evaluations.every((e) => e.status === 'COMPLIANT')
      : provenance.every((p) => p.compliant);
    return {
      compliant,
      scope,
      ...(query.environment_name ? { environment: query.environment_name } : {}),
      policy_evaluations: evaluations,
      flows: provenance.map((p) => ({
        flow: p.flow,
        trail: p.trail,
        compliance_status: {
          status: p.compliance?.status ?? 'INCOMPLETE',
          attestations_statuses: attestationStatuses(p, fingerprint),
        },
      })),
      // In the Kosli app's scheme, which the CLI expects; the service redirects it into the workspace.
      html_url: kosliAppUrl(req, [org, 'flows', provenance[0].flow, 'artifacts', fingerprint]),
    };
  }

  /** Who judges: the environment's attached policies, the named ones, or (none) the flows. */
  private async judges(
    org: string,
    query: AssertQuery,
  ): Promise<{ scope: KosliAssertion['scope']; policies: NamedPolicy[] }> {
    const reads = docReads(this.reads);
    if (query.environment_name) {
      const environment = await environmentNamed(reads, org, query.environment_name);
      if (!environment) throw new ApiError(404, 'Environment not found');
      const attached = (environment.policies as string[] | undefined) ?? [];
      return { scope: 'environment', policies: await latestPolicies(reads, org, attached) };
    }
    const named = [query.policy_name ?? []].flat();
    if (!named.length) return { scope: 'flow', policies: [] };
    const policies = await latestPolicies(reads, org, named);
    const unknown = named.filter((n) => !policies.some((p) => p.name === n));
    if (unknown.length) throw new ApiError(404, `Policy not found: ${unknown.join(', ')}`);
    // In the order asked.
    return { scope: 'policy', policies: named.map((n) => policies.find((p) => p.name === n)!) };
  }

  /** What a policy sees of the artifact: its flow and tags, its trails' compliance, the attestations on both. */
  private async facts(org: string, fingerprint: string, provenance: Provenance[]): Promise<ArtifactFacts> {
    const flow = await flowNamed(docReads(this.reads), org, provenance[0].flow);
    const built = provenance.map((p) => p.view?.artifacts.find((a) => a.fingerprint === fingerprint));
    const attestations = provenance.flatMap((p, i) =>
      [...Object.values(p.view?.attestations ?? {}), ...Object.values(built[i]?.attestations ?? {})].map(
        (a) => ({
          name: a.name,
          type: policyAttestationType(a),
          compliant: a.compliant,
        }),
      ),
    );
    return {
      name: built.find((a) => a)?.filename ?? fingerprint,
      fingerprint,
      flow: flow ? { name: flow.name, tags: tagsOf(flow.tags) } : null,
      trailCompliant: provenance.every((p) => p.compliant),
      attestations,
    };
  }
}
