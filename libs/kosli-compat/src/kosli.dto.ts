import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { SnapshotFieldsDto } from '#des/environments';
import {
  ATTESTATION_TYPES,
  type AttestationType,
  COMPLIANCE_STATUSES,
  type ComplianceStatus,
} from '#des/trails';

// The answers of the Kosli CLI's routes, in the shapes the CLI decodes: classes the controllers' return types are checked against.

export class KosliRunningPlace {
  @ApiProperty() environment_name!: string;
  @ApiProperty() snapshot_index!: number;
}

/** One line of an artifact's history, as `kosli get artifact` prints it. */
export class KosliHistoryEntry {
  @ApiProperty({ description: '`cli reported`, `started running in prod#3` …' }) event!: string;
  @ApiProperty({ description: 'UNIX seconds' }) timestamp!: number;
}

/** What `kosli report artifact` lists the commits since. */
export class KosliLatestCommit {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The commit of the artifact the flow reported last; null: none',
  })
  latest_commit!: string | null;
}

/** An artifact as the Kosli CLI prints it: its flow and trail, its trail's compliance, where it runs and ran. */
export class KosliArtifact {
  @ApiProperty() filename!: string;
  @ApiProperty({ description: 'sha256, hex' }) fingerprint!: string;
  @ApiProperty() flow_name!: string;
  @ApiProperty() trail_name!: string;
  @ApiProperty({ type: String, nullable: true }) template_reference_name!: string | null;
  @ApiProperty({ description: 'Seven characters at least (`unknown` when none was reported)' })
  git_commit!: string;
  @ApiProperty({ description: 'Empty when none was reported' }) commit_url!: string;
  @ApiProperty({ description: 'Empty when none was reported' }) build_url!: string;
  @ApiProperty({ description: 'The artifact in the workspace' }) html_url!: string;
  @ApiProperty({
    enum: COMPLIANCE_STATUSES,
    description: "Its trail's compliance (INCOMPLETE: no trail)",
  })
  state!: ComplianceStatus;
  @ApiProperty({ description: 'When it was reported; UNIX seconds' }) created_at!: number;
  @ApiProperty({ type: [KosliRunningPlace], description: 'Where it runs now' }) running!: KosliRunningPlace[];
  @ApiProperty({ type: [KosliRunningPlace], description: 'Where it ran' }) exited!: KosliRunningPlace[];
  @ApiProperty({
    type: [KosliHistoryEntry],
    description: 'From its trail, oldest first: reported, attested, started running, exited',
  })
  history!: KosliHistoryEntry[];
}

/** A search hit: the artifact, with the names the CLI's `search` reads. */
export class KosliSearchArtifact extends KosliArtifact {
  @ApiProperty({ description: 'The filename' }) name!: string;
  @ApiProperty({ description: 'The flow name' }) flow!: string;
  @ApiProperty({ description: 'Always true' }) has_provenance!: boolean;
  @ApiProperty({ enum: COMPLIANCE_STATUSES, description: 'The state' }) compliance_state!: ComplianceStatus;
  @ApiProperty({ type: [String], description: '`<environment>#<snapshot index>`' }) running_in!: string[];
  @ApiProperty({ type: [String], description: '`<environment>#<snapshot index>`' }) exited_from!: string[];
}

export const SHA_KINDS = ['fingerprint', 'commit'] as const;

export class KosliShaMatches {
  @ApiProperty({ enum: SHA_KINDS }) type!: (typeof SHA_KINDS)[number];
  @ApiProperty() count!: number;
  @ApiProperty({ type: [String] }) matches!: string[];
}

export const RESOLVED_KINDS = ['fingerprint', 'commit', 'mixed'] as const;

export class KosliResolvedSha {
  @ApiProperty({
    enum: RESOLVED_KINDS,
    description: 'fingerprint or commit: the prefix names exactly one; mixed: anything else',
  })
  type!: (typeof RESOLVED_KINDS)[number];
  @ApiProperty({ description: 'The one fingerprint or commit it names; empty when mixed' })
  full_match!: string;
  @ApiProperty({ type: KosliShaMatches }) fingerprints!: KosliShaMatches;
  @ApiProperty({ type: KosliShaMatches }) commits!: KosliShaMatches;
}

/** `GET /search/{org}/sha/{prefix}`. */
export class KosliSearchResult {
  @ApiProperty({ type: KosliResolvedSha }) resolved_to!: KosliResolvedSha;
  @ApiProperty({ type: [KosliSearchArtifact] }) artifacts!: KosliSearchArtifact[];
}

export const ASSERTED_STATUSES = ['COMPLETE', 'MISSING'] as const;

export class KosliAttestationStatus {
  @ApiProperty() attestation_name!: string;
  @ApiProperty({
    enum: [...ATTESTATION_TYPES, ''],
    description: 'Empty for a missing attestation',
  })
  attestation_type!: AttestationType | '';
  @ApiProperty({ enum: ASSERTED_STATUSES }) status!: (typeof ASSERTED_STATUSES)[number];
  @ApiProperty() is_compliant!: boolean;
  @ApiProperty({ description: 'Always false' }) unexpected!: boolean;
}

export class KosliFlowComplianceStatus {
  @ApiProperty({ enum: COMPLIANCE_STATUSES }) status!: ComplianceStatus;
  @ApiProperty({ type: [KosliAttestationStatus] }) attestations_statuses!: KosliAttestationStatus[];
}

export class KosliAssertedFlow {
  @ApiProperty() flow!: string;
  @ApiProperty() trail!: string;
  @ApiProperty({ type: KosliFlowComplianceStatus }) compliance_status!: KosliFlowComplianceStatus;
}

export const ASSERT_SCOPES = ['flow', 'environment', 'policy'] as const;

/** `GET /asserts/{org}/fingerprint/{fingerprint}`. */
/** Why a rule is not satisfied, in the Kosli server's terms. */
export class KosliResolution {
  @ApiProperty({
    enum: [
      'missing_provenance',
      'non_compliant_in_trail',
      'missing_attestation',
      'non_compliant_attestation',
    ],
  })
  type!:
    'missing_provenance' | 'non_compliant_in_trail' | 'missing_attestation' | 'non_compliant_attestation';
  @ApiProperty({ type: 'object', properties: { for_control: { type: 'string' } } })
  context!: { for_control?: string };
}

export class KosliRule {
  @ApiProperty({ enum: ['provenance', 'trail-compliance', 'attestation'] })
  type!: 'provenance' | 'trail-compliance' | 'attestation';
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The rule as the policy states it',
  })
  definition!: Record<string, unknown>;
}

export class KosliRuleEvaluation {
  @ApiProperty({ type: KosliRule }) rule!: KosliRule;
  @ApiProperty({ description: 'Its `if` does not hold, or an exception does' }) ignored!: boolean;
  @ApiProperty() satisfied!: boolean;
  @ApiProperty({ type: [KosliResolution] }) resolutions!: KosliResolution[];
  @ApiPropertyOptional({ description: 'Why not, in words' }) reason?: string;
}

/** One policy's verdict on the artifact, rule by rule. */
export class KosliPolicyEvaluation {
  @ApiProperty() policy_name!: string;
  @ApiProperty({ enum: ['COMPLIANT', 'NON-COMPLIANT'] }) status!: 'COMPLIANT' | 'NON-COMPLIANT';
  @ApiProperty({ type: [KosliRuleEvaluation] }) rule_evaluations!: KosliRuleEvaluation[];
}

export class KosliAssertion {
  @ApiProperty() compliant!: boolean;
  @ApiProperty({ enum: ASSERT_SCOPES }) scope!: (typeof ASSERT_SCOPES)[number];
  @ApiPropertyOptional({ description: 'The environment asked about (scope environment)' })
  environment?: string;
  @ApiProperty({
    type: [KosliPolicyEvaluation],
    description: 'Each judging policy, rule by rule; none in scope flow',
  })
  policy_evaluations!: KosliPolicyEvaluation[];
  @ApiProperty({ type: [KosliAssertedFlow] }) flows!: KosliAssertedFlow[];
  @ApiProperty({
    description:
      "The artifact's page (in the Kosli app's scheme, which the service redirects into the workspace)",
  })
  html_url!: string;
}

/** A row of `GET /snapshots/{org}/{env}`. */
export class KosliSnapshotSummary {
  @ApiProperty() index!: number;
  @ApiProperty({ description: 'When it was recorded; UNIX seconds' }) from!: number;
  @ApiProperty({ description: 'When the next one was recorded; UNIX seconds (0: in force)' }) to!: number;
  @ApiProperty({ description: 'Seconds in force (until now for the one in force)' }) duration!: number;
  @ApiProperty() compliant!: boolean;
}

export class KosliPod {
  @ApiProperty() namespace!: string;
  @ApiProperty({ description: 'UNIX seconds' }) creationTimestamp!: number;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'Always empty',
  })
  owners!: Record<string, unknown>[];
}

export const SNAPSHOT_CHANGES = ['started', 'unchanged', 'scaled'] as const;

export class KosliSnapshotAnnotation {
  @ApiProperty({ enum: SNAPSHOT_CHANGES, description: 'Against the previous snapshot' })
  type!: (typeof SNAPSHOT_CHANGES)[number];
  @ApiProperty({ description: 'Instances in the previous snapshot' }) was!: number;
  @ApiProperty({ description: 'Instances in this one' }) now!: number;
}

@ApiExtraModels(KosliPod)
export class KosliSnapshotArtifact {
  @ApiProperty() name!: string;
  @ApiProperty() fingerprint!: string;
  @ApiProperty({ description: 'Its first trail’s flow; empty without provenance' }) flow_name!: string;
  @ApiProperty({ description: 'Empty without provenance' }) trail_name!: string;
  @ApiProperty({ description: 'At the read’s instant (the compliance model)' }) compliant!: boolean;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'Always empty',
  })
  deployments!: Record<string, unknown>[];
  @ApiProperty({ description: 'Empty without a commit' }) git_commit!: string;
  @ApiProperty({ description: 'Empty without one' }) commit_url!: string;
  @ApiProperty({ type: [Number], description: 'Its pods’ creation times; UNIX seconds' })
  creationTimestamp!: number[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(KosliPod) },
    description: 'Its pods by name',
  })
  pods!: Record<string, KosliPod>;
  @ApiProperty({ type: KosliSnapshotAnnotation }) annotation!: KosliSnapshotAnnotation;
  @ApiProperty() instances!: number;
  @ApiProperty({ description: 'The snapshot it started running in' }) since_snapshot!: number;
}

/** `GET /snapshots/{org}/{env}/{ref}`: the spec's snapshot fields, with the artifacts as the CLI decodes them. */
export class KosliSnapshot extends SnapshotFieldsDto {
  @ApiProperty() org!: string;
  @ApiProperty({ description: "The environment's type" }) type!: string;
  @ApiProperty({ description: 'Always empty' }) user_id!: string;
  @ApiProperty({ description: 'Always empty' }) user_name!: string;
  @ApiProperty({ type: [KosliSnapshotArtifact] }) artifacts!: KosliSnapshotArtifact[];
}

export class KosliDiffArtifact {
  @ApiProperty() fingerprint!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'Its first trail’s flow; empty without provenance' }) flow!: string;
  @ApiProperty({ description: 'Always empty' }) commit_url!: string;
  @ApiProperty({ description: 'Its newest pod’s creation; UNIX seconds (0: no pods)' })
  most_recent_timestamp!: number;
  @ApiProperty({ description: 'In the second snapshot, else the first' }) instance_count!: number;
  @ApiProperty() s1_instance_count!: number;
  @ApiProperty() s2_instance_count!: number;
  @ApiProperty({ type: [String], description: 'Pod names' }) pods!: string[];
}

export class KosliDiffSide {
  @ApiProperty({ description: '`<environment>#<index>`; empty for changed and not-changed' })
  snapshot_id!: string;
  @ApiProperty({ type: [KosliDiffArtifact] }) artifacts!: KosliDiffArtifact[];
}

/** `GET /env-diff/{org}`. */
export class KosliSnapshotDiff {
  @ApiProperty({ type: KosliDiffSide, description: 'Only in the first' }) snappish1!: KosliDiffSide;
  @ApiProperty({ type: KosliDiffSide, description: 'Only in the second' }) snappish2!: KosliDiffSide;
  @ApiProperty({ type: KosliDiffSide, description: 'In both, with other instance counts' })
  changed!: KosliDiffSide;
  @ApiProperty({ type: KosliDiffSide, description: 'In both, with the same instance counts' })
  'not-changed'!: KosliDiffSide;
}
