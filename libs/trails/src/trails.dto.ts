import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { AtQuery, FreeForm, PageQuery } from '#des/platform';
import type { TimelineEntry } from './trail-timeline';
import { ComplianceView, KosliTrailEventView, TrailComplianceView } from './compliance-statuses.dto';
import type { OverriddenAttestation } from './attestation-slots';
import {
  ATTESTATION_TYPES,
  type AttachmentRef,
  type AttestationType,
  type GitCommitInfo,
  type RepoInfo,
  type TrailEvent,
} from './trail.events';
import {
  type ArtifactView,
  type AttestationView,
  COMPLIANCE_STATUSES,
  type ComplianceStatus,
  type RunningPlace,
  type trailAsShown,
} from './trail.view';
import {
  ArrayMaxSize,
  IsArray,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateNested,
} from 'class-validator';

export const TRAIL_NAME = /^[a-zA-Z0-9][a-zA-Z0-9\-_.~]*$/;

export class GitCommitInfoDto {
  @ApiProperty() @IsString() @MaxLength(128) sha1!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(10_000) message?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) author?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) branch?: string;
  @ApiPropertyOptional({ description: 'UNIX seconds' }) @IsOptional() @IsNumber() timestamp?: number;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) url?: string;
}

/** A commit of the list `kosli report artifact` sends: those since the flow's previous artifact. */
export class ListedCommitDto extends GitCommitInfoDto {
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  parents?: string[];
}

export class RepoInfoDto {
  @ApiProperty() @IsString() @MaxLength(512) name!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) url?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) provider?: string;
  // The rest of what the Kosli CLI sends as repo_info.
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(5000) description?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  namespace_path?: string[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  @FreeForm()
  additional_info?: Record<string, unknown>;
}

/** Links the Kosli CLI sends (`--external-url name=url`): name → {url, fingerprint?}. */
const externalUrls = () =>
  ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'name → {url, fingerprint}',
  });

/** Each link's fingerprint, when given, is a sha256 (the message names the value refused). */
const IsExternalUrls = () =>
  ValidateBy({
    name: 'externalUrls',
    validator: {
      validate: (value: unknown) => externalFingerprintProblem(value) === null,
      defaultMessage: (args) => externalFingerprintProblem(args?.value) ?? 'external_urls is invalid',
    },
  });

function externalFingerprintProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  for (const [name, link] of Object.entries(value as Record<string, unknown>)) {
    const fingerprint = (link as { fingerprint?: unknown } | null)?.fingerprint;
    if (
      fingerprint !== undefined &&
      (typeof fingerprint !== 'string' || !/^[0-9a-f]{64}$/.test(fingerprint))
    ) {
      return `external_urls.${name}.fingerprint '${String(fingerprint)}' is not a sha256 fingerprint (64 lowercase hex digits)`;
    }
  }
  return null;
}

export class PutTrailDto {
  @ApiProperty({ pattern: TRAIL_NAME.source, maxLength: 256 })
  @IsString()
  @MaxLength(256)
  @Matches(TRAIL_NAME, {
    message: 'name must start with a letter or digit and contain only letters, digits, "-", "_", "." and "~"',
  })
  name!: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(5000) description?: string;

  @ApiPropertyOptional({ type: GitCommitInfoDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => GitCommitInfoDto)
  git_commit_info?: GitCommitInfoDto;

  @ApiPropertyOptional({ type: RepoInfoDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => RepoInfoDto)
  repo_info?: RepoInfoDto;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) origin_url?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  @FreeForm()
  user_data?: Record<string, unknown>;

  @externalUrls() @IsOptional() @IsObject() external_urls?: Record<string, unknown>;
}

export class ReportArtifactDto {
  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: 'sha256 of the artifact, hex' })
  @IsString()
  @Matches(/^[0-9a-f]{64}$/, { message: 'fingerprint must be a sha256 digest: 64 lowercase hex digits' })
  fingerprint!: string;

  @ApiProperty() @IsString() @MaxLength(1024) filename!: string;

  @ApiPropertyOptional({
    pattern: TRAIL_NAME.source,
    description:
      'The trail that built it; begun here when it has not begun. Absent (`kosli report artifact`): the trail named by the fingerprint',
  })
  @IsOptional()
  @IsString()
  @Matches(TRAIL_NAME, { message: 'trail_name is not a valid trail name' })
  trail_name?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) git_commit?: string;

  @ApiPropertyOptional({ type: GitCommitInfoDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => GitCommitInfoDto)
  git_commit_info?: GitCommitInfoDto;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) build_url?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) commit_url?: string;

  @ApiPropertyOptional({ type: RepoInfoDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => RepoInfoDto)
  repo_info?: RepoInfoDto;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(256) template_reference_name?: string;

  @ApiPropertyOptional({
    type: [ListedCommitDto],
    description: 'The commits since the flow’s previous artifact (`kosli report artifact`)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => ListedCommitDto)
  commits_list?: ListedCommitDto[];

  // What the Kosli CLI sends beside every artifact.
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) repo_url?: string;
  @externalUrls() @IsOptional() @IsObject() @IsExternalUrls() external_urls?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  annotations?: Record<string, string>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  @FreeForm()
  user_data?: Record<string, unknown>;
}

/** `GET /trails/{org}`: an organization's trails, a page at a time, as the Kosli CLI lists them. */
export class TrailsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only this flow' }) @IsOptional() @IsString() flow?: string;

  @ApiPropertyOptional({ description: 'Only trails with this artifact (sha256)' })
  @IsOptional()
  @IsString()
  fingerprint?: string;

  @ApiPropertyOptional({ description: 'Only flows with this tag: `key=value`' })
  @IsOptional()
  @IsString()
  @Matches(/^[^=]+=.*$/, { message: 'flow_tag is key=value' })
  flow_tag?: string;
}

// The answers: classes the controllers' return types are checked against (`implements` the views they are built from).

/** A free-form object, kept as sent. */
const SENT_OBJECT = { type: 'object', additionalProperties: true } as const;

export class AttachmentRefView implements AttachmentRef {
  @ApiProperty() filename!: string;
  @ApiProperty({ description: 'SHA-256 of its content, hex' }) sha256!: string;
  @ApiProperty({ description: 'Bytes' }) size!: number;
}

/** What an override keeps of the attestation it overrode. */
export class OverriddenAttestationView implements OverriddenAttestation {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ATTESTATION_TYPES }) type!: AttestationType;
  @ApiProperty({ description: 'Its own compliance, before the override' }) compliant!: boolean;
  @ApiProperty({ description: 'UNIX seconds' }) reported_at!: number;
}

/** An attestation's fields, as recorded (without when). */
export class AttestationFields implements Omit<AttestationView, 'reported_at'> {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ATTESTATION_TYPES }) type!: AttestationType;
  @ApiProperty() compliant!: boolean;
  @ApiPropertyOptional({ description: 'The artifact attested (sha256); absent for a trail attestation' })
  artifact_fingerprint?: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: String, nullable: true }) origin_url!: string | null;
  @ApiProperty(SENT_OBJECT) user_data!: Record<string, unknown>;
  @ApiProperty({
    ...SENT_OBJECT,
    description:
      "The type's own evidence (junit results, snyk results, pull requests, jira issues; a custom type's data with its schema errors and rule results)",
  })
  evidence!: Record<string, unknown>;
  @ApiPropertyOptional({
    ...SENT_OBJECT,
    description: 'As sent (commonly sha1, message, author, branch, timestamp, url)',
  })
  git_commit_info?: GitCommitInfo;
  @ApiPropertyOptional({ ...SENT_OBJECT, description: 'As sent (commonly name, url, provider)' })
  repo_info?: RepoInfo;
  @ApiPropertyOptional({ ...SENT_OBJECT, description: 'name → {url, fingerprint}' })
  external_urls?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  annotations?: Record<string, string>;
  @ApiPropertyOptional({ type: [AttachmentRefView], description: 'Files sent with it, kept by content' })
  attachments?: AttachmentRefView[];
  @ApiPropertyOptional({
    type: OverriddenAttestationView,
    nullable: true,
    description:
      'Overrides only (as the trail shows them): the attestation whose compliance it replaced; null when none was made',
  })
  overridden?: OverriddenAttestationView | null;
}

/** An attestation on a trail or an artifact, as the trail shows it. */
export class AttestationViewDto extends AttestationFields implements AttestationView {
  @ApiProperty({ description: 'When it was recorded; UNIX seconds' }) reported_at!: number;
}

/** `POST /attestations/…`: the attestation recorded, with its flow and trail. */
export class AttestationCreatedView extends AttestationFields {
  @ApiProperty() flow!: string;
  @ApiProperty() trail!: string;
}

export class RunningPlaceView implements RunningPlace {
  @ApiProperty() environment!: string;
  @ApiProperty() snapshot_index!: number;
  @ApiProperty({ description: 'Running there since; UNIX seconds' }) since!: number;
}

export class ExitedPlaceView extends RunningPlaceView {
  @ApiProperty({ description: 'Stopped running there; UNIX seconds' }) until!: number;
}

/** An artifact a trail built, as the trail shows it: what was reported, its attestations, where it runs and ran. */
@ApiExtraModels(AttestationViewDto)
export class TrailArtifactView implements ArtifactView {
  @ApiProperty({ description: 'sha256, hex' }) fingerprint!: string;
  @ApiProperty() filename!: string;
  @ApiProperty({ type: String, nullable: true }) git_commit!: string | null;
  @ApiProperty({ type: GitCommitInfoDto, nullable: true }) git_commit_info!: GitCommitInfoDto | null;
  @ApiProperty({ type: String, nullable: true }) build_url!: string | null;
  @ApiProperty({ type: String, nullable: true }) commit_url!: string | null;
  @ApiProperty({ type: RepoInfoDto, nullable: true }) repo_info!: RepoInfoDto | null;
  @ApiProperty({ type: String, nullable: true }) template_reference_name!: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Absent on artifacts reported before it was kept',
  })
  repo_url?: string | null;
  @ApiPropertyOptional({ ...SENT_OBJECT, description: 'name → {url, fingerprint}' })
  external_urls?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  annotations?: Record<string, string>;
  @ApiPropertyOptional(SENT_OBJECT) user_data?: Record<string, unknown>;
  @ApiPropertyOptional({
    type: [ListedCommitDto],
    description: 'The commits since the flow’s previous artifact',
  })
  commits_list?: ListedCommitDto[];
  @ApiProperty({ description: 'When it was (last) reported; UNIX seconds' }) reported_at!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(AttestationViewDto) },
    description: 'Its attestations by name: the latest of a name',
  })
  attestations!: Record<string, AttestationViewDto>;
  @ApiProperty({ type: [RunningPlaceView], description: 'Where it runs now' }) running!: RunningPlaceView[];
  @ApiProperty({ type: [ExitedPlaceView], description: 'Where it ran' }) exited!: ExitedPlaceView[];
}

/** `GET /artifacts/{org}/{flow}/{fingerprint}`: the artifact with the flow and trail that reported it. */
export class ReportedArtifactView extends TrailArtifactView {
  @ApiProperty() org!: string;
  @ApiProperty() flow!: string;
  @ApiProperty() trail!: string;
  @ApiProperty({
    description: 'The artifact in the workspace, at the instant read (`?at=` when one was asked)',
  })
  html_url!: string;
}

/** A trail as `GET /trails/{org}/{flow}/{trail}` shows it: its view, with its compliance against the flow's template. */
@ApiExtraModels(AttestationViewDto)
export class TrailShownView implements ReturnType<typeof trailAsShown> {
  @ApiProperty() org!: string;
  @ApiProperty() flow!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: GitCommitInfoDto, nullable: true }) git_commit_info!: GitCommitInfoDto | null;
  @ApiProperty({ type: RepoInfoDto, nullable: true }) repo_info!: RepoInfoDto | null;
  @ApiProperty({ type: String, nullable: true }) origin_url!: string | null;
  @ApiProperty(SENT_OBJECT) user_data!: Record<string, unknown>;
  @ApiPropertyOptional({ ...SENT_OBJECT, description: 'name → {url, fingerprint}' })
  external_urls?: Record<string, unknown>;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({ description: 'UNIX seconds' }) last_modified_at!: number;
  @ApiProperty({ type: [TrailArtifactView] }) artifacts!: TrailArtifactView[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(AttestationViewDto) },
    description: 'Trail-level attestations by name: the latest of a name',
  })
  attestations!: Record<string, AttestationViewDto>;
  @ApiProperty({
    type: [KosliTrailEventView],
    description:
      "The trail's first 200 events in Kosli's names (`kosli get trail`); the whole timeline: `…/events`",
  })
  events!: KosliTrailEventView[];
  @ApiProperty({ description: "Entries on the trail's timeline (`GET …/events`)" }) event_count!: number;
  @ApiProperty({ type: TrailComplianceView }) compliance_status!: TrailComplianceView;
  @ApiProperty({ enum: COMPLIANCE_STATUSES, description: 'The status alone, as the Kosli CLI reads it' })
  compliance_state!: ComplianceStatus;
  @ApiProperty({ description: 'The trail in the workspace, at the instant read (`?at=` when one was asked)' })
  html_url!: string;
}

/** A trail as the trail lists show it: its fields and its compliance. */
export class TrailSummaryView {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: GitCommitInfoDto, nullable: true }) git_commit_info!: GitCommitInfoDto | null;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({ description: 'UNIX seconds' }) last_modified_at!: number;
  @ApiProperty({ type: ComplianceView }) compliance_status!: ComplianceView;
  @ApiProperty({ enum: COMPLIANCE_STATUSES, description: 'The status alone, as the Kosli CLI reads it' })
  compliance_state!: ComplianceStatus;
}

export class OrganizationTrailView extends TrailSummaryView {
  @ApiProperty() flow!: string;
}

export class TrailsPagination {
  @ApiProperty() page!: number;
  @ApiProperty() page_count!: number;
  @ApiProperty() total!: number;
  @ApiProperty() per_page!: number;
}

/** `GET /trails/{org}`: a page of the organization's trails, newest first. */
export class OrganizationTrailsPage {
  @ApiProperty({ type: [OrganizationTrailView] }) data!: OrganizationTrailView[];
  @ApiProperty({ type: TrailsPagination }) pagination!: TrailsPagination;
}

/** Every type of event a trail's stream holds: one timeline entry each. */
const TRAIL_EVENT_TYPES = Object.keys({
  trail_reported: true,
  trail_updated: true,
  artifact_reported: true,
  attestation_reported: true,
  artifact_started_running: true,
  artifact_stopped_running: true,
} satisfies Record<TrailEvent['type'], true>);

export class TimelineEntryView implements TimelineEntry {
  @ApiProperty({ description: "The entry's revision of the trail's stream" }) seq!: number;
  @ApiProperty({ enum: TRAIL_EVENT_TYPES }) type!: TrailEvent['type'];
  @ApiProperty({ description: 'When it was recorded; UNIX seconds' }) timestamp!: number;
  @ApiProperty() summary!: string;
}

export class TimelineLinks {
  @ApiProperty() self!: string;
  @ApiProperty({ type: String, nullable: true }) next!: string | null;
  @ApiProperty({ type: String, nullable: true }) prev!: string | null;
}

/** `GET /trails/{org}/{flow}/{trail}/events`: a page of the trail's timeline, oldest first. */
export class TrailEventsPage {
  @ApiProperty({ type: [TimelineEntryView] }) events!: TimelineEntryView[];
  @ApiProperty() page!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty() total_pages!: number;
  @ApiProperty() total_count!: number;
  @ApiProperty({ type: TimelineLinks }) _links!: TimelineLinks;
}

/**
 * One attestation as `kosli get attestation` and `kosli evaluate` read it
 * (Kosli's field names), with the type's own evidence fields beside them.
 */
export class RecordedAttestationView {
  @ApiProperty() attestation_id!: string;
  @ApiProperty() attestation_name!: string;
  @ApiProperty({ enum: ATTESTATION_TYPES }) attestation_type!: AttestationType;
  @ApiProperty({ description: 'Its compliance as recorded (an override: its new status)' })
  is_compliant!: boolean;
  @ApiPropertyOptional({ description: 'The artifact attested (sha256); absent for a trail attestation' })
  artifact_fingerprint?: string;
  @ApiProperty({ description: 'When it was recorded; UNIX seconds' }) created_at!: number;
  @ApiProperty() flow_name!: string;
  @ApiProperty() trail_name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: String, nullable: true }) origin_url!: string | null;
  @ApiProperty(SENT_OBJECT) user_data!: Record<string, unknown>;
  @ApiProperty({ ...SENT_OBJECT, description: "The type's own evidence (also spread beside these fields)" })
  evidence!: Record<string, unknown>;
  @ApiPropertyOptional(SENT_OBJECT) git_commit_info?: GitCommitInfo;
  @ApiPropertyOptional(SENT_OBJECT) repo_info?: RepoInfo;
  @ApiPropertyOptional({ ...SENT_OBJECT, description: 'name → {href, fingerprint}' })
  external_urls?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  annotations?: Record<string, string>;
  @ApiPropertyOptional({ type: [AttachmentRefView] }) attachments?: AttachmentRefView[];
  @ApiProperty({ description: "The trail's page in the workspace" }) html_url!: string;
}

/** `GET /attestations/{org}?attestation_id=`: the attestation in a list (empty when there is none). */
export class RecordedAttestationsPage {
  @ApiProperty({ type: [RecordedAttestationView] }) data!: RecordedAttestationView[];
}

/** `?attestation_id=` (and `?at=`). */
export class AttestationByIdQuery extends AtQuery {
  @ApiProperty({ description: 'The id of an attestation (as its trail shows it)' })
  @IsString()
  @MaxLength(512)
  attestation_id!: string;
}
