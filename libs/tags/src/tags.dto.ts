import { ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString } from 'class-validator';
import { MAX_TAG_KEY, MAX_TAG_VALUE, TAG_KEY, type Tags } from '#des/kernel';

/** A tag key's rule, as the controller checks it (`patchErrors`) and the document states it. */
const TAG_KEY_SCHEMA = { type: 'string', pattern: TAG_KEY.source, maxLength: MAX_TAG_KEY } as const;

/** Endpoint 7's body: keys to set, keys to remove (either may be left out). */
export class TagPatchDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: MAX_TAG_VALUE },
    propertyNames: TAG_KEY_SCHEMA,
    example: { team: 'payments' },
  } as ApiPropertyOptions)
  @IsOptional()
  @IsObject()
  set_tags?: Tags;

  @ApiPropertyOptional({ type: 'array', items: TAG_KEY_SCHEMA, maxItems: 100, example: ['legacy'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  remove_tags?: string[];
}
