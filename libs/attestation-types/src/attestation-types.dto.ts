import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { AtQuery, FreeForm } from '#des/platform';
import {
  ArrayMaxSize,
  IsArray,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9\-_.~]*$/;

/** A line of a type's summary (the Kosli CLI's `--summary NAME=EXPRESSION` or `--summary-json`). */
export class SummaryEntryDto {
  @ApiProperty({ maxLength: 128 }) @IsString() @IsNotEmpty() @MaxLength(128) name!: string;
  @ApiProperty({ maxLength: 2000, description: 'A jq expression computed from the attestation data' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  expression!: string;
}

export class CreateAttestationTypeDto {
  @ApiProperty({ pattern: NAME.source, maxLength: 128 })
  @IsString()
  @MaxLength(128)
  @Matches(NAME, {
    message: 'name must start with a letter or digit and contain only letters, digits, "-", "_", "." and "~"',
  })
  name!: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(5000) description?: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'JSON Schema the attestation data must match',
  })
  @IsObject()
  @FreeForm()
  schema!: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String], description: 'jq expressions that must all yield true on the data' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  jq_rules?: string[];

  @ApiPropertyOptional({
    type: [SummaryEntryDto],
    description: 'What to show of each attestation: named jq expressions of its data',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => SummaryEntryDto)
  summary?: SummaryEntryDto[];
}

const JSON_SCHEMA = {
  type: 'object',
  additionalProperties: true,
  description: 'JSON Schema the attestation data must match',
} as const;

export class AttestationTypeEvaluatorView {
  @ApiProperty({ enum: ['jq'] }) content_type!: 'jq';
  @ApiProperty({ type: [String], description: 'jq expressions that must all yield true on the data' })
  rules!: string[];
}

/**
 * The Kosli CLI's form of a new type, multipart: this in `data_json`, the
 * schema as a file in `type_schema`. Only documented: it becomes a
 * CreateAttestationTypeDto, validated as that.
 */
export class AttestationTypeFormDto {
  @ApiProperty({ pattern: NAME.source, maxLength: 128 }) name!: string;
  @ApiPropertyOptional({ maxLength: 5000 }) description?: string;
  @ApiPropertyOptional({ type: AttestationTypeEvaluatorView }) evaluator?: AttestationTypeEvaluatorView;
  @ApiPropertyOptional({ type: [SummaryEntryDto] }) summary?: SummaryEntryDto[];
}

/** A version of a custom type, as the Kosli CLI reads it: a create with another definition makes the next one. */
export class AttestationTypeVersionView {
  @ApiProperty({ description: 'From 1' }) version!: number;
  @ApiProperty({ description: 'UNIX seconds' }) timestamp!: number;
  @ApiProperty({ type: String, nullable: true, description: 'null: unknown' }) created_by!: string | null;
  @ApiProperty(JSON_SCHEMA) type_schema!: Record<string, unknown>;
  @ApiProperty({ type: AttestationTypeEvaluatorView }) evaluator!: AttestationTypeEvaluatorView;
  @ApiProperty({ type: [SummaryEntryDto], nullable: true, description: 'null: none' })
  summary!: SummaryEntryDto[] | null;
}

/** A custom attestation type as `POST` and `GET /custom-attestation-types/{org}` answer it. */
export class AttestationTypeView {
  @ApiProperty() name!: string;
  @ApiProperty() org!: string;
  @ApiPropertyOptional({ description: 'Left out when the type has none' }) description?: string;
  @ApiProperty(JSON_SCHEMA) schema!: Record<string, unknown>;
  @ApiProperty({ type: [String], description: 'jq expressions that must all yield true on the data' })
  jq_rules!: string[];
  @ApiProperty({ type: [SummaryEntryDto], description: "The latest version's summary (none: empty)" })
  summary!: SummaryEntryDto[];
  @ApiProperty({ description: 'An archived type stays readable and refuses new attestations' })
  archived!: boolean;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({ type: String, nullable: true, description: 'null: unknown' }) created_by!: string | null;
  @ApiProperty({ description: 'UNIX seconds' }) last_modified_at!: number;
  @ApiProperty({
    type: [AttestationTypeVersionView],
    description: 'Oldest first; the last is the one in use',
  })
  versions!: AttestationTypeVersionView[];
  @ApiPropertyOptional({ description: 'When it was archived (archived types only); UNIX seconds' })
  archived_at?: number;
}

/** `?version=N`: one version of the type (from 1). */
export class AttestationTypeVersionQuery extends AtQuery {
  @ApiPropertyOptional({
    description: 'One version of the type (from 1), as `kosli get attestation-type NAME@vN` asks',
  })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  version?: string;
}

/** One version of a type (`?version=N`): the type's name, org and state, and that version alone. */
export class AttestationTypeOneVersionView {
  @ApiProperty() name!: string;
  @ApiProperty() org!: string;
  @ApiPropertyOptional() description?: string;
  @ApiProperty() archived!: boolean;
  @ApiProperty({ type: [AttestationTypeVersionView] }) versions!: AttestationTypeVersionView[];
}
