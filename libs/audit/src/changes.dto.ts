import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import {
  type Change,
  type ChangeEvidence,
  type Commit,
  type EvidenceItem,
  type Gap,
  GAP_KINDS,
  type GapKind,
} from './change-population';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { AtQuery, IsInstant, IsPageNumber, IsPerPage } from '#des/platform';
import { CommitView } from '#des/trails';

const NAME = '[a-zA-Z0-9][a-zA-Z0-9\\-_.~]*';

/** The population's filters: the period, the environments, and the pin (`at`). */
export class PopulationQuery extends AtQuery {
  @IsOptional()
  @IsInstant('from', 'Changes that started at or after this instant (default: 30 days before `to`)')
  from?: number;

  @IsOptional()
  @IsInstant('to', 'Changes that started before this instant (default: `at`)')
  to?: number;

  @ApiPropertyOptional({
    description:
      'Comma-separated environment names (default: every environment but logical ones; a logical one stands for its members)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  @Matches(new RegExp(`^${NAME}(,${NAME})*$`), {
    message: 'environments is a comma-separated list of environment names',
  })
  environments?: string;
}

const GAP_LIST = `^(${GAP_KINDS.join('|')})(,(${GAP_KINDS.join('|')}))*$`;

export class ChangesQuery extends PopulationQuery {
  @ApiPropertyOptional({
    pattern: GAP_LIST,
    description:
      'Comma-separated gap kinds: only the changes with at least one of them are listed (the population, its total and its hash stay whole)',
  })
  @IsOptional()
  @IsString()
  @Matches(new RegExp(GAP_LIST), { message: `gaps is a comma-separated list of: ${GAP_KINDS.join(', ')}` })
  gaps?: string;
  @IsPageNumber()
  page?: number;

  @IsPerPage(1000, 100)
  per_page?: number;
}

export class SampleQuery extends PopulationQuery {
  @ApiProperty({ minimum: 1, maximum: 500, description: 'How many changes to draw' })
  @Type(() => Number)
  @IsInt({ message: 'size must be an integer from 1 to 500' })
  @Min(1, { message: 'size must be an integer from 1 to 500' })
  @Max(500, { message: 'size must be an integer from 1 to 500' })
  size!: number;

  @ApiProperty({
    minLength: 1,
    maxLength: 128,
    description: 'Any printable text: the same seed draws the same sample',
  })
  @IsString()
  @Matches(/^[\x20-\x7e]{1,128}$/, { message: 'seed is 1 to 128 printable ASCII characters' })
  seed!: string;
}

/**
 * A change bundle's query: the population (with its filters), or with `seed`
 * and `size` the sample drawn from it, as the sample endpoint draws it.
 */
export class ChangesBundleQuery extends PopulationQuery {
  @ApiPropertyOptional({
    pattern: GAP_LIST,
    description: 'Comma-separated gap kinds: only the changes with at least one of them (not with a sample)',
  })
  @IsOptional()
  @IsString()
  @Matches(new RegExp(GAP_LIST), { message: `gaps is a comma-separated list of: ${GAP_KINDS.join(', ')}` })
  gaps?: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 100,
    description:
      "With `seed`: the sample of this size (at most 100 in a bundle, which renders each sampled trail's PDF)",
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'size must be an integer from 1 to 100' })
  @Min(1, { message: 'size must be an integer from 1 to 100' })
  @Max(100, { message: 'size must be an integer from 1 to 100' })
  size?: number;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 128,
    description: 'With `size`: the seed the sample is drawn with',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[\x20-\x7e]{1,128}$/, { message: 'seed is 1 to 128 printable ASCII characters' })
  seed?: string;
}

export class EvidenceItemView implements EvidenceItem {
  @ApiProperty({ description: 'The attestation type (`custom:<name>` for a custom one)' }) type!: string;
  @ApiProperty() compliant!: boolean;
  @ApiProperty({ description: 'When it was recorded; UNIX seconds' }) recorded_at!: number;
  @ApiPropertyOptional({ type: [String], description: 'Pull requests only: who opened them' })
  authors?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Pull requests only: who approved them' })
  approvers?: string[];
}

const byName = {
  type: 'object',
  additionalProperties: { $ref: getSchemaPath(EvidenceItemView) },
} as const;

export class ChangeEvidenceView implements ChangeEvidence {
  @ApiProperty({ ...byName, description: "The trail's attestations, by name" })
  trail!: Record<string, EvidenceItemView>;
  @ApiProperty({ ...byName, description: "The artifact's own attestations on that trail, by name" })
  artifact!: Record<string, EvidenceItemView>;
}

export class GapView implements Gap {
  @ApiProperty({ enum: GAP_KINDS }) kind!: GapKind;
  @ApiProperty({ description: 'What is missing or late, with the instants involved' }) detail!: string;
}

@ApiExtraModels(EvidenceItemView)
export class ChangeView implements Change {
  @ApiProperty({ description: '`<environment>#<snapshot>:<fingerprint>`, stable' }) id!: string;
  @ApiProperty() environment!: string;
  @ApiProperty() snapshot_index!: number;
  @ApiProperty({ description: 'When it started running there; UNIX seconds' }) started_at!: number;
  @ApiProperty() artifact_name!: string;
  @ApiProperty() fingerprint!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Its first trail’s flow; null: no provenance' })
  flow!: string | null;
  @ApiProperty({ type: String, nullable: true }) trail!: string | null;
  @ApiProperty({ type: CommitView, nullable: true }) commit!: Commit | null;
  @ApiProperty() compliant_when_started!: boolean;
  @ApiProperty({ description: 'At the pin (`at`)' }) compliant!: boolean;
  @ApiProperty({ type: ChangeEvidenceView }) evidence!: ChangeEvidenceView;
  @ApiProperty({ type: [GapView] }) gaps!: GapView[];
}

/** The pin and the period of a population. */
class PopulationScopeView {
  @ApiProperty({ description: 'The pin: the population as known at this instant; UNIX seconds' }) at!: number;
  @ApiProperty({ description: 'Changes that started at or after this; UNIX seconds' }) from!: number;
  @ApiProperty({ description: 'Changes that started before this; UNIX seconds' }) to!: number;
  @ApiProperty({ type: [String] }) environments!: string[];
}

export class ChangesPage extends PopulationScopeView {
  @ApiProperty({ enum: GAP_KINDS, isArray: true, description: 'The gap kinds listed (empty: every change)' })
  gaps!: GapKind[];
  @ApiProperty({ description: 'The changes listed: the population, or those with the gaps asked for' })
  total_count!: number;
  @ApiProperty({ description: 'The whole population of the period and environments' })
  population_total!: number;
  @ApiProperty({ description: 'Hex SHA-256 of the population ids sorted ascending, joined by a newline' })
  population_sha256!: string;
  @ApiProperty() page!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty() total_pages!: number;
  @ApiProperty({ type: [ChangeView] }) changes!: ChangeView[];
}

export class ChangesSample extends PopulationScopeView {
  @ApiProperty() seed!: string;
  @ApiProperty() size!: number;
  @ApiProperty() population_total!: number;
  @ApiProperty() population_sha256!: string;
  @ApiProperty({ type: [ChangeView], description: 'The drawn changes, smallest rank first' })
  changes!: ChangeView[];
}
