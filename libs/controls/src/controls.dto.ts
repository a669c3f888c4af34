import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
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

export class CreateControlDto extends UpdateControlDto {
  @ApiProperty({ pattern: IDENTIFIER.source, maxLength: 128, example: 'SOC2-CC8.1' })
  @IsString()
  @MaxLength(128)
  @Matches(IDENTIFIER, {
    message:
      'identifier must start with a letter or digit and contain only letters, digits, ".", "-", "_" and "~"',
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
