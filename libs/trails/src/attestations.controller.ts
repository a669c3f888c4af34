import { Body, Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import {
  AcceptsDataJson,
  ApiError,
  ApiPathVariants,
  AttachmentStore,
  READ_STORE,
  Requires,
  stableId,
  uploadedParts,
} from '#des/platform';
import { docReads, type ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { attestationTypeNamed, CustomEvaluator } from '#des/attestation-types';
import { ATTESTATION_BODY_SCHEMAS, parseAttestation } from './attestation-types';
import { ChangeTrail } from './trail.commands';
import { TrailReads } from './trail-reads';
import { ATTESTATION_TYPES, AttachmentRef, AttestationType } from './trail.events';
import { AttestationCreatedView } from './trails.dto';

/** Each type's operation in the OpenAPI document: its id, summary and an example body. */
const PER_TYPE: Record<AttestationType, { id: string; summary: string; example: Record<string, unknown> }> = {
  generic: {
    id: 'Generic',
    summary: 'Record a generic attestation (is_compliant)',
    example: { attestation_name: 'code-review', is_compliant: true, description: 'Reviewed by two people' },
  },
  junit: {
    id: 'Junit',
    summary: 'Record JUnit test results (compliant when none failed or erred)',
    example: {
      attestation_name: 'unit-tests',
      junit_results: [{ name: 'api', tests: 120, failures: 0, errors: 0, skipped: 2, duration: 12.5 }],
    },
  },
  snyk: {
    id: 'Snyk',
    summary: 'Record a Snyk scan (compliant when it found nothing)',
    example: {
      attestation_name: 'scan',
      target_artifacts: ['backend'],
      snyk_results: { vulnerabilities: [] },
    },
  },
  pull_request: {
    id: 'PullRequest',
    summary: 'Record the pull requests of a change (compliant when there is one)',
    example: {
      attestation_name: 'pull-request',
      pull_requests: [{ url: 'https://github.com/acme/backend/pull/42', state: 'merged', author: 'ada' }],
    },
  },
  jira: {
    id: 'Jira',
    summary: 'Record Jira issues (compliant when each exists)',
    example: { attestation_name: 'jira', jira_results: [{ issue_key: 'SHOP-7', issue_exists: true }] },
  },
  custom: {
    id: 'Custom',
    summary:
      "Record an attestation of a custom type (compliant when its data meets the type's schema and rules)",
    example: { attestation_name: 'coverage', type_name: 'coverage', attestation_data: { lines: 0.91 } },
  },
  sonar: {
    id: 'Sonar',
    summary: 'Record a SonarQube analysis (compliant when it passed its quality gate)',
    example: {
      attestation_name: 'sonar',
      sonar_results: { status: 'SUCCESS', revision: 'abc123', qualityGate: { status: 'OK', conditions: [] } },
    },
  },
  system: {
    id: 'Decision',
    summary: 'Record a compliance decision about a control (compliant as decided)',
    example: {
      attestation_name: 'change-approval',
      type_name: 'decision',
      control: 'RCTL-043',
      attestation_data: { is_compliant: true },
    },
  },
  override: {
    id: 'Override',
    summary:
      'Override the compliance of the attestation of the same name (the override keeps what it overrode)',
    example: {
      attestation_name: 'unit-tests',
      reason: 'flaky test, re-run by hand',
      new_compliance_status: true,
      original_attestation_type: 'junit',
    },
  },
};

/** Attestations made on trails and on the artifacts they built. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller()
export class AttestationsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly attachments: AttachmentStore,
    private readonly customTypes: CustomEvaluator,
    private readonly trailReads: TrailReads,
  ) {}

  @Post('attestations/:org/:flow/trail/:trail/:type')
  @ApiOperation({
    operationId: 'createAttestation',
    summary: 'Record an attestation on a trail or one of its artifacts',
  })
  @Requires('member')
  @AcceptsDataJson(undefined, {
    files: {
      attachment_file: { description: 'Files kept beside the attestation (at most 10 MiB each)', many: true },
    },
  })
  @ApiBody({ schema: { type: 'object' } })
  @ApiPathVariants({
    param: 'type',
    variants: Object.fromEntries(
      ATTESTATION_TYPES.map((type) => [
        type,
        {
          operationId: `create${PER_TYPE[type].id}Attestation`,
          summary: PER_TYPE[type].summary,
          schemaName: `${PER_TYPE[type].id}AttestationBody`,
          schema: ATTESTATION_BODY_SCHEMAS[type],
          example: PER_TYPE[type].example,
        },
      ]),
    ),
  })
  @ApiCreatedResponse({ type: AttestationCreatedView, description: 'The attestation recorded' })
  async attest(
    @Param('org') org: string,
    @Param('flow') flow: string,
    @Param('trail') trail: string,
    @Param('type') type: string,
    @Body() body: unknown,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AttestationCreatedView> {
    if (!(ATTESTATION_TYPES as readonly string[]).includes(type)) {
      throw new ApiError(400, 'Input payload validation failed', {
        type: `unknown attestation type '${type}'; known: ${ATTESTATION_TYPES.join(', ')}`,
      });
    }
    const parsed = parseAttestation(type as AttestationType, body);
    if ('errors' in parsed) throw new ApiError(400, 'Input payload validation failed', parsed.errors);
    await this.trailReads.flow(org, flow);
    if (type === 'custom') Object.assign(parsed, await this.custom(org, parsed.evidence));
    const attestation = {
      // A retry of an idempotent request that died names the same attestation (recorded once).
      id: stableId('attestation'),
      name: parsed.name,
      type: type as AttestationType,
      compliant: parsed.compliant,
      artifact_fingerprint: parsed.artifactFingerprint,
      description: parsed.description,
      origin_url: parsed.originUrl,
      user_data: parsed.userData,
      evidence: parsed.evidence,
      ...parsed.context,
      ...(await this.keepAttachments(req)),
    };
    await this.commands.execute(
      new ChangeTrail(
        org,
        flow,
        trail,
        { kind: 'report_attestation', attestation, targets: parsed.targets, org },
        requestMetadata(req),
      ),
    );
    res.status(201);
    const { artifact_fingerprint, ...rest } = attestation;
    return { ...rest, ...(artifact_fingerprint ? { artifact_fingerprint } : {}), flow, trail };
  }

  /** Files sent beside data_json (the CLI's `attachment_file`), kept by content and named on the attestation. */
  private async keepAttachments(req: AuthenticatedRequest): Promise<{ attachments?: AttachmentRef[] }> {
    const parts = uploadedParts(req);
    if (!parts.length) return {};
    const attachments: AttachmentRef[] = [];
    for (const part of parts)
      attachments.push({ filename: part.filename, ...(await this.attachments.adopt(part)) });
    return { attachments };
  }

  /** A custom attestation: its type must exist and be live; compliant when the data passes its schema and jq rules. */
  private async custom(org: string, evidence: Record<string, unknown>) {
    const typeName = evidence.type_name as string;
    const type = await attestationTypeNamed(docReads(this.reads), org, typeName);
    if (!type)
      throw new ApiError(404, `Custom attestation type '${typeName}' does not exist for org '${org}'`);
    if (type.archived) {
      throw new ApiError(400, `Custom attestation type '${typeName}' is archived`, {
        type_name: `'${typeName}' is archived and takes no new attestations`,
      });
    }
    const verdict = await this.customTypes.evaluate(
      org,
      type.schema as Record<string, unknown>,
      type.jq_rules as string[],
      evidence.attestation_data,
    );
    return {
      compliant: verdict.compliant,
      evidence: {
        ...evidence,
        // The version of the type that judged it (its latest when it was made).
        type_version: (type.versions as unknown[] | undefined)?.length ?? 1,
        schema_errors: verdict.schema_errors,
        rule_results: verdict.rule_results,
      },
    };
  }
}
