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
