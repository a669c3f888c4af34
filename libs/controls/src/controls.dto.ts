import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { Transform } from 'class-transformer';
import { AtQuery, IsPageNumber, IsPerPage } from '#des/platform';
import type { Links } from './control.decider';

export const IDENTIFIER = /^[a-zA-Z0-9][a-zA-Z0-9.\-_~]*$/;

const LINKS = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'link name → URL',
} as const;

/** `PUT /controls/{org}/{identifier}`: fields left out keep their value. */
export class UpdateControlDto {
  @ApiPropertyOptional({ maxLength: 256, description: 'Defaults to the identifier on creation' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  name?: string;

  @ApiPropertyOptional({ maxLength: 5000 })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional(LINKS)
  @IsOptional()
  @IsObject()
  links?: Links;
}

/**
 * `POST /controls/{org}`. Named `ControlPostInput` in the OpenAPI document: the
 * Kosli CLI's contract test looks its create-control payload up by that name.
 */
export class ControlPostInput extends UpdateControlDto {
  @ApiProperty({ pattern: IDENTIFIER.source, maxLength: 128, example: 'SOC2-CC8.1' })
  @IsString()
  @MaxLength(128)
  @Matches(IDENTIFIER, {
    message:
      'Control identifier \'$value\' contains invalid characters: it must start with a letter or digit and contain only letters, digits, ".", "-", "_" and "~"',
  })
  identifier!: string;

  @ApiProperty({ maxLength: 256 })
  @IsString()
  @MaxLength(256)
  declare name: string;
}

/** A control as endpoint 2 answers it: every field of the spec's Control table. */
export class ControlView {
  @ApiProperty() identifier!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'From 1, one more on each change of its name, description or links' })
  version!: number;
  @ApiProperty() created_by!: string;
  @ApiProperty() description!: string;
  @ApiProperty(LINKS) links!: Links;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({ description: 'UNIX seconds' }) last_modified_at!: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) tags!: Record<string, string>;
  @ApiProperty() archived!: boolean;
  @ApiProperty({
    type: [String],
    description: 'The policies whose attestation rules name it (`for_control`)',
  })
  policies_referencing!: string[];
}

/** `GET /controls/{org}`: with `page` or `per_page`, a page (`{controls, page, …}`); else every control. */
export class ControlsQuery extends AtQuery {
  @IsPageNumber()
  page?: number;

  @IsPerPage(100, 20)
  per_page?: number;

  @ApiPropertyOptional({
    maxLength: 256,
    description: 'Only controls whose identifier or name contains this (any case)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  search?: string;

  @ApiPropertyOptional({
    type: [String],
    description:
      'Only controls carrying this tag: `key:value`, or `key` for any value; repeated, all must hold',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value : [value]))
  @IsString({ each: true })
  @MaxLength(512, { each: true })
  tag?: string[];

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'true: the archived controls instead of the others',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  archived?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], description: 'By identifier; asc by default' })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  sort_direction?: string;
}

/** A page of controls, in the shape the Kosli CLI reads. */
export class ControlsPage {
  @ApiProperty({ type: [ControlView] }) controls!: ControlView[];
  @ApiProperty() page!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty() total_pages!: number;
  @ApiProperty() total_count!: number;
}
