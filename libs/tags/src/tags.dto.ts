import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString } from 'class-validator';
import type { Tags } from '#des/kernel';

/** Endpoint 7's body: keys to set, keys to remove (either may be left out). */
export class TagPatchDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { team: 'payments' },
  })
  @IsOptional()
  @IsObject()
  set_tags?: Tags;

  @ApiPropertyOptional({ type: [String], maxItems: 100, example: ['legacy'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  remove_tags?: string[];
}
