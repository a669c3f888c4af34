import { EVENTS_BOUND, EVENTS_BOUND_MESSAGE } from './events-bounds';
import { AtQuery, IsInstant, IsPageNumber, IsPerPage, PageQuery } from '#des/platform';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JSONSchema } from 'class-validator-jsonschema';
import { CommitView, RepoInfoView } from '#des/trails';
import type { ArtifactProvenance, SnapshotArtifactView, SnapshotView } from './compliance-model';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { ENVIRONMENT_TYPES, EnvironmentType } from './environment.decider';
import { SNAPSHOT_INTERVAL, SNAPSHOT_INTERVAL_MESSAGE } from './snapshot-ref';

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9.\-_~]*$/;

/**
 * `PUT /environments/{org}`. Named as the Kosli CLI's contract test looks it up
 * (`CreateEnvironmentPutInput`). Only a logical environment has members
 * (checkMembers enforces it; the document states it).
 */
@JSONSchema({
  if: { properties: { type: { not: { const: 'logical' } } } },
  then: { properties: { included_environments: { maxItems: 0 } } },
  // OAS 3.1 (JSON Schema 2020-12) keywords, which the decorator's OAS 3.0 types do not name.
} as never)
export class CreateEnvironmentPutInput {
  @ApiProperty({ pattern: NAME.source, maxLength: 128, example: 'production' })
  @IsString()
  @MaxLength(128)
  @Matches(NAME, {
    message: ({ value }) =>
      `'${String(value)}' is an invalid name: name must start with a letter or digit and contain only letters, digits, ".", "-", "_" and "~"`,
  })
  name!: string;

  @ApiProperty({ enum: ENVIRONMENT_TYPES })
  @IsIn(ENVIRONMENT_TYPES, {
    message: ({ value }) =>
      `'${String(value)}' is not a type: type must be one of: ${ENVIRONMENT_TYPES.join(', ')}`,
  })
  type!: EnvironmentType;

  @ApiPropertyOptional({ maxLength: 1000, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Members of a logical environment (physical environments)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  included_environments?: string[];

  @ApiPropertyOptional({
    description: 'Deprecated (the Kosli CLI may send it): accepted, ignored; always false',
  })
  @IsOptional()
  @IsBoolean()
  include_scaling?: boolean;

  @ApiPropertyOptional({
    description: 'Deprecated (the Kosli CLI may send it): accepted, ignored; use policies',
  })
  @IsOptional()
  @IsBoolean()
  require_provenance?: boolean;
}

/** `PUT /environments/{org}/{env}/rename`. */
export class RenameEnvironmentDto {
  @ApiProperty({ pattern: NAME.source, maxLength: 128 })
  @IsString()
  @MaxLength(128)
  new_name!: string;
}

/** `PUT /environments/{org}/{logical}/join`. */
export class JoinEnvironmentDto {
  @ApiProperty({ description: 'The physical environment to add to the logical one' })
  @IsString()
  @MaxLength(128)
  physical_env_name!: string;
}

export const ENVIRONMENT_SORTS = ['name', 'type', 'last_modified_at', 'last_reported_at'] as const;

/**
 * `GET /environments/{org}`: the whole list (the spec's answer) unless a page
 * is asked for (`page` or `per_page`, as the Kosli CLI does), then a page
 * `{page, per_page, total_pages, total_count, environments}`; either filtered.
 */
export class ListEnvironmentsQuery extends AtQuery {
  @IsPageNumber()
  page?: number;

  @IsPerPage(1000, 20)
  per_page?: number;

  @ApiPropertyOptional({ description: 'Environments whose name contains this' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  name?: string;

  @ApiPropertyOptional({ type: [String], description: 'A type (repeatable): any of them' })
  @IsOptional()
  @IsIn(ENVIRONMENT_TYPES, { each: true, message: `type must be one of: ${ENVIRONMENT_TYPES.join(', ')}` })
  type?: EnvironmentType | EnvironmentType[];

  @ApiPropertyOptional({ type: [String], description: '`key` or `key:value` (repeatable): all of them' })
  @IsOptional()
  @IsString({ each: true })
  tag?: string | string[];

  @ApiPropertyOptional({
    type: [String],
    description: 'Accepted for the Kosli CLI; this service has no spaces',
  })
  @IsOptional()
  @IsString({ each: true })
  space_id?: string | string[];

  @ApiPropertyOptional({ enum: ENVIRONMENT_SORTS, default: 'name' })
  @IsOptional()
  @IsIn(ENVIRONMENT_SORTS, { message: `sort must be one of: ${ENVIRONMENT_SORTS.join(', ')}` })
  sort?: (typeof ENVIRONMENT_SORTS)[number];

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'asc' })
  @IsOptional()
  @IsIn(['asc', 'desc'], { message: 'sort_direction must be asc or desc' })
  sort_direction?: 'asc' | 'desc';

  @ApiPropertyOptional({ description: 'true: archived environments only; all: both (default: active only)' })
  @IsOptional()
  @IsIn(['true', 'false', 'all'])
  archived?: string;
}

export class EnvironmentView {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ENVIRONMENT_TYPES }) type!: string;
  @ApiProperty() description!: string;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Last change of the environment itself (create, update); UNIX seconds',
  })
  last_modified_at!: number | null;
  @ApiProperty({ description: 'Deprecated: always false' }) include_scaling!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) tags!: Record<string, string>;
  @ApiProperty({ type: Number, nullable: true, description: 'Last report received; UNIX seconds' })
  last_reported_at!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Last report that changed what runs; UNIX seconds',
  })
  last_changed_at!: number | null;
  @ApiProperty({
    description:
      'Compliance: true iff every running artifact is compliant by its own trails (no provenance: not compliant); an environment that runs nothing is compliant',
  })
  state!: boolean;
  @ApiProperty({ type: [String] }) policies!: string[];
  @ApiProperty({ type: [String] }) included_environments!: string[];
  @ApiProperty({ description: 'Archived: takes no reports, listed only when asked for' }) archived!: boolean;
  @ApiProperty({
    description: 'The environment in the workspace, at the instant read (`?at=` when one was asked)',
  })
  html_url!: string;
}

export class DeploymentsQuery extends PageQuery {
  @IsOptional()
  @IsInstant('from', 'Start of the range (default: 30 days before `to`)')
  from?: number;

  @IsOptional()
  @IsInstant('to', 'End of the range (default: now, or `at`)')
  to?: number;
}

export const AUDIT_EVENT_TYPES = ['started', 'exited', 'changed'] as const;

export class AuditLogQuery extends AtQuery {
  @IsOptional()
  @IsInstant('from_timestamp', 'Lower bound')
  from_timestamp?: number;

  @IsOptional()
  @IsInstant('to_timestamp', 'Upper bound')
  to_timestamp?: number;

  @ApiPropertyOptional({ description: 'Comma-separated: started, exited, changed' })
  @IsOptional()
  @IsString()
  @Matches(/^(started|exited|changed)(,(started|exited|changed))*$/, {
    message: 'event_types is a comma-separated list of started, exited, changed',
  })
  event_types?: string;

  @ApiPropertyOptional({
    description: 'Comma-separated flow names; `no provenance` selects artifacts without one',
  })
  @IsOptional()
  @IsString()
  flow_names?: string;

  @ApiPropertyOptional({ description: 'Comma-separated repository names' })
  @IsOptional()
  @IsString()
  repo_names?: string;
}

/** `POST` and `DELETE /environments/{org}/{env}/policies`. */
export class PolicyNamesDto {
  @ApiProperty({ type: [String], minItems: 1, maxItems: 100, example: ['prod-policy'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  policy_names!: string[];
}

/**
 * `GET /environments/{org}/{env}/events`: the audit log's filters, and what
 * the Kosli CLI's `log environment` adds: a page (only when asked for; the
 * spec's answer is the whole list), newest first unless `reverse`, a snapshot
 * `interval` (`N`, `N..M`, or empty for all), and its names for the bounds
 * and the repository filter.
 */
export class EnvironmentEventsQuery extends AuditLogQuery {
  @IsPageNumber()
  page?: number;

  @IsPerPage(1000, 15)
  per_page?: number;

  @ApiPropertyOptional({ description: 'Snapshots: `N`, `N..M`, or empty for all' })
  @IsOptional()
  @IsString()
  @Matches(SNAPSHOT_INTERVAL, { message: SNAPSHOT_INTERVAL_MESSAGE })
  interval?: string;

  @ApiPropertyOptional({ description: 'true: oldest first (the default is oldest first unless paged)' })
  @IsOptional()
  @IsIn(['true', 'false'])
  reverse?: string;

  @ApiPropertyOptional({
    description: 'From a snapshot (`N`, `~N`) or an instant (`NOW`, a time ago: `1hour`, `2days`)',
  })
  @IsOptional()
  @IsString()
  @Matches(EVENTS_BOUND, { message: `start ${EVENTS_BOUND_MESSAGE}` })
  start?: string;

  @ApiPropertyOptional({ description: 'Until a snapshot (`N`, `~N`) or an instant (`NOW`, `1hour` ago …)' })
  @IsOptional()
  @IsString()
  @Matches(EVENTS_BOUND, { message: `end ${EVENTS_BOUND_MESSAGE}` })
  end?: string;

  @IsOptional()
  @IsInstant('start_ts', "Lower bound (the CLI's name for from_timestamp)")
  start_ts?: number;

  @IsOptional()
  @IsInstant('end_ts', "Upper bound (the CLI's name for to_timestamp)")
  end_ts?: number;

  @ApiPropertyOptional({ type: [String], description: 'A repository name (repeatable)' })
  @IsOptional()
  @IsString({ each: true })
  repo_name?: string | string[];
}

/** A trail that reported an artifact, with its commit and repository as known then. */
export class ProvenanceTrailView {
  @ApiProperty() flow!: string;
  @ApiProperty() trail!: string;
  @ApiProperty({ type: CommitView, nullable: true }) commit!: CommitView | null;
  @ApiProperty({ type: RepoInfoView, nullable: true }) repo!: RepoInfoView | null;
}

export class ArtifactProvenanceView extends ProvenanceTrailView implements ArtifactProvenance {
  @ApiProperty({
    type: [ProvenanceTrailView],
    description: 'Every trail that reported it; the first is above',
  })
  trails!: ProvenanceTrailView[];
}

export class PolicyDecisionView {
  @ApiProperty() compliant!: boolean;
  @ApiProperty({ type: [String] }) reasons!: string[];
}

export class PodView {
  @ApiProperty() pod!: string;
  @ApiProperty() namespace!: string;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
}

export class SnapshotArtifactDto implements SnapshotArtifactView {
  @ApiProperty() fingerprint!: string;
  @ApiProperty() artifact_name!: string;
  @ApiProperty() instances!: number;
  @ApiProperty({ type: [PodView] }) pods!: PodView[];
  @ApiProperty({ description: 'The snapshot it started running in' }) since_snapshot!: number;
  @ApiProperty({ description: 'At the read’s instant (the compliance model)' }) compliant!: boolean;
  @ApiProperty() compliant_when_made!: boolean;
  @ApiProperty({ type: ArtifactProvenanceView, nullable: true, description: 'null: no trail reported it' })
  provenance!: ArtifactProvenanceView | null;
  @ApiProperty({ type: PolicyDecisionView, nullable: true, description: 'null: no policy attached' })
  policy_decision!: PolicyDecisionView | null;
}

/** A snapshot's own fields, in the compliance model's terms (docs/auditors.md): every view of a snapshot shows them. */
export class SnapshotFieldsDto implements Omit<SnapshotView, 'artifacts'> {
  @ApiProperty() environment!: string;
  @ApiProperty() index!: number;
  @ApiProperty({ description: 'When it was recorded; UNIX seconds' }) timestamp!: number;
  @ApiProperty() pods!: number;
  @ApiProperty({ description: 'Every artifact compliant, at the read’s instant' }) compliant!: boolean;
  @ApiProperty() compliant_when_made!: boolean;
  @ApiProperty({ type: 'number', nullable: true, description: 'Last re-assessment; UNIX seconds' })
  reassessed_at!: number | null;
}

/** A snapshot with its artifacts. */
export class SnapshotDto extends SnapshotFieldsDto implements SnapshotView {
  @ApiProperty({ type: [SnapshotArtifactDto] }) artifacts!: SnapshotArtifactDto[];
  @ApiProperty({ description: 'The environment in the workspace at the instant of this snapshot' })
  html_url!: string;
}

export class ReplacedArtifactView {
  @ApiProperty() fingerprint!: string;
  @ApiProperty() artifact_name!: string;
  @ApiProperty({ description: 'The snapshot it started in' }) snapshot_index!: number;
  @ApiProperty({ type: CommitView, nullable: true }) commit!: CommitView | null;
}

export class DeploymentLinks {
  @ApiProperty({ description: 'The snapshot it started in' }) snapshot!: string;
}

/** A deployment (a `started` entry), as the spec lists it, with the names of its provenance. */
export class DeploymentView {
  @ApiProperty() env_name!: string;
  @ApiProperty() fingerprint!: string;
  @ApiProperty() artifact_name!: string;
  @ApiProperty({ description: 'UNIX seconds' }) deployed_at!: number;
  @ApiProperty() snapshot_index!: number;
  @ApiProperty({ description: 'Its compliance when it started (the compliance model)' }) compliance!: boolean;
  @ApiProperty({ type: CommitView, nullable: true }) commit!: CommitView | null;
  @ApiProperty({ type: [String] }) flow_names!: string[];
  @ApiProperty({ type: [String] }) trail_names!: string[];
  @ApiProperty({ type: [String] }) repo_names!: string[];
  @ApiProperty({ type: ReplacedArtifactView, nullable: true })
  replaced_artifact!: ReplacedArtifactView | null;
  @ApiProperty({ type: String, nullable: true, description: 'A compare link between the two commits' })
  diff_url!: string | null;
  @ApiProperty({ type: DeploymentLinks }) _links!: DeploymentLinks;
}

export class PageLinks {
  @ApiProperty() self!: string;
  @ApiProperty({ type: String, nullable: true }) next!: string | null;
  @ApiProperty({ type: String, nullable: true }) prev!: string | null;
}

export class DeploymentsPage {
  @ApiProperty() page!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty() total_pages!: number;
  @ApiProperty() total_count!: number;
  @ApiProperty({ type: PageLinks }) _links!: PageLinks;
  @ApiProperty({ type: [DeploymentView], description: 'Newest first' }) deployments!: DeploymentView[];
}

/** A row of the audit log, with the names the Kosli CLI reads too. */
export class EnvironmentEventView {
  @ApiProperty() environment!: string;
  @ApiProperty({ description: 'UNIX seconds' }) timestamp!: number;
  @ApiProperty({ enum: AUDIT_EVENT_TYPES }) event_type!: (typeof AUDIT_EVENT_TYPES)[number];
  @ApiProperty() snapshot_index!: number;
  @ApiProperty() artifact_name!: string;
  @ApiProperty() fingerprint!: string;
  @ApiProperty() instances!: number;
  @ApiProperty({ type: [String] }) flow_names!: string[];
  @ApiProperty({ type: [String] }) trail_names!: string[];
  @ApiProperty({ type: [String] }) repo_names!: string[];
  @ApiProperty({ type: String, nullable: true, description: 'sha1 of its first trail’s commit' }) commit!:
    string | null;
  @ApiProperty() compliant!: boolean;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'The fingerprint (the Kosli CLI’s name)' }) sha256!: string;
  @ApiProperty({ description: 'The timestamp (the Kosli CLI’s name)' }) reported_at!: number;
  @ApiProperty({ description: 'The flow names, comma-separated (the Kosli CLI’s name)' }) pipeline!: string;
}

/** A page of the environment list, as the Kosli CLI decodes it. */
export class EnvironmentsPage {
  @ApiProperty() page!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty() total_pages!: number;
  @ApiProperty() total_count!: number;
  @ApiProperty({ type: [EnvironmentView] }) environments!: EnvironmentView[];
}
