import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { FlowTemplate } from './flow-template';

export const FLOW_NAME = /^[a-zA-Z0-9][a-zA-Z0-9.\-_~]*$/;

export class PutFlowDto {
  @ApiProperty({ pattern: FLOW_NAME.source, maxLength: 128 })
  @IsString()
  @MaxLength(128)
  @Matches(FLOW_NAME, {
    message: 'name must start with a letter or digit and contain only letters, digits, ".", "-", "_" and "~"',
  })
  name!: string;

  @ApiPropertyOptional({ maxLength: 5000 })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional({
    description: '{trail: {attestations: [{name, type}]}, artifacts: [{name, attestations: [...]}]}',
  })
  @IsOptional()
  @IsObject()
  template?: FlowTemplate;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  tags?: Record<string, string>;
}
