import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9\-_.~]*$/;

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
  schema!: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String], description: 'jq expressions that must all yield true on the data' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  jq_rules?: string[];
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
}

/** A version of a custom type, as the Kosli CLI reads it (types are not versioned yet: one version). */
export class AttestationTypeVersionView {
  @ApiProperty() version!: number;
  @ApiProperty({ description: 'UNIX seconds' }) timestamp!: number;
  @ApiProperty({ type: String, nullable: true, description: 'null: unknown' }) created_by!: string | null;
  @ApiProperty(JSON_SCHEMA) type_schema!: Record<string, unknown>;
  @ApiProperty({ type: AttestationTypeEvaluatorView }) evaluator!: AttestationTypeEvaluatorView;
}

/** A custom attestation type as `POST` and `GET /custom-attestation-types/{org}` answer it. */
export class AttestationTypeView {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty(JSON_SCHEMA) schema!: Record<string, unknown>;
  @ApiProperty({ type: [String], description: 'jq expressions that must all yield true on the data' })
  jq_rules!: string[];
  @ApiProperty({ description: 'An archived type stays readable and refuses new attestations' })
  archived!: boolean;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({ type: String, nullable: true, description: 'null: unknown' }) created_by!: string | null;
  @ApiProperty({ description: 'UNIX seconds' }) last_modified_at!: number;
  @ApiProperty({ type: [AttestationTypeVersionView] }) versions!: AttestationTypeVersionView[];
  @ApiPropertyOptional({ description: 'When it was archived (archived types only); UNIX seconds' })
  archived_at?: number;
}
