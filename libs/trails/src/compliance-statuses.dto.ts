import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { KosliTrailEvent } from './kosli-trail-events';
import type { GitCommitInfo } from './trail.events';
import { type Compliance, COMPLIANCE_STATUSES, type ComplianceStatus } from './trail.view';
import type { ArtifactStatus, AttestationStatus, ComplianceStatuses } from './compliance-statuses';

export class ComplianceView implements Compliance {
  @ApiProperty({ enum: COMPLIANCE_STATUSES }) status!: ComplianceStatus;
  @ApiProperty({
    type: [String],
    description: 'Required attestations not made yet (`artifact/<reference>/<name>` for artifacts)',
  })
  missing!: string[];
  @ApiProperty({ type: [String], description: 'Attestations made and non-compliant' }) failing!: string[];
}

export class AttestationStatusView implements AttestationStatus {
  @ApiProperty() attestation_name!: string;
  @ApiProperty() attestation_type!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The attestation made (`GET /attestations/{org}?attestation_id=`); null while missing',
  })
  attestation_id!: string | null;
  @ApiProperty({ enum: ['COMPLETE', 'MISSING'] }) status!: 'COMPLETE' | 'MISSING';
  @ApiProperty({ type: Boolean, nullable: true, description: 'null while missing' }) is_compliant!:
    boolean | null;
  @ApiProperty({ description: 'Made, but the template does not expect it' }) unexpected!: boolean;
}

export class ArtifactStatusView implements ArtifactStatus {
  @ApiProperty({ type: String, nullable: true, description: 'null while not reported' }) fingerprint!:
    string | null;
  @ApiProperty({ type: String, nullable: true }) artifact_name!: string | null;
  @ApiProperty({ enum: [...COMPLIANCE_STATUSES, 'MISSING'] }) status!: ComplianceStatus | 'MISSING';
  @ApiProperty({ description: 'Reported, but the template does not name it' }) unexpected!: boolean;
  @ApiProperty({ type: [AttestationStatusView] }) attestations_statuses!: AttestationStatusView[];
}

/** A trail's compliance with one status per expected (or unexpected) attestation and artifact. */
@ApiExtraModels(ArtifactStatusView)
export class TrailComplianceView extends ComplianceView implements ComplianceStatuses {
  @ApiProperty({
    type: [AttestationStatusView],
    description: "The trail's own: expected first, then unexpected",
  })
  attestations_statuses!: AttestationStatusView[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ArtifactStatusView) },
    description: "By the artifact's name in the template (its fingerprint when it has none)",
  })
  artifacts_statuses!: Record<string, ArtifactStatusView>;
}

/** One event of a trail in Kosli's names, as `kosli get trail` renders it. */
export class KosliTrailEventView implements KosliTrailEvent {
  @ApiProperty({
    description:
      'trail_reported, trail_updated, artifact_creation_reported, trail_attestation_reported, artifact_attestation_reported, artifact_started_running, artifact_stopped_running',
  })
  type!: string;
  @ApiProperty({ description: 'UNIX seconds' }) timestamp!: number;
  @ApiPropertyOptional({ type: Object, nullable: true }) git_commit_info?: GitCommitInfo | null;
  @ApiPropertyOptional() is_compliant?: boolean;
  @ApiPropertyOptional() attestation_type?: string;
  @ApiPropertyOptional() attestation_id?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) template_reference_name?: string | null;
  @ApiPropertyOptional() target_artifact?: string;
  @ApiPropertyOptional() artifact_name?: string;
  @ApiPropertyOptional() fingerprint?: string;
  @ApiPropertyOptional() environment_name?: string;
  @ApiPropertyOptional() snapshot_index?: number;
}
