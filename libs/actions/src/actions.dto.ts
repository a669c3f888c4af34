import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { NAME_PATTERN, NAME_PATTERN_MESSAGE } from '#des/platform';
import { TARGET_TYPES, TRIGGERS, type Trigger } from './action.decider';

export class TargetDto {
  @ApiProperty({ enum: TARGET_TYPES })
  @IsIn(TARGET_TYPES, { message: `type must be one of: ${TARGET_TYPES.join(', ')}` })
  type!: (typeof TARGET_TYPES)[number];

  @ApiProperty({ description: 'http(s) URL: your webhook, or a Slack incoming-webhook URL', maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  webhook!: string;
}

/** `PUT /actions/{org}/environments`: creates the action named `name`, or updates it. */
export class PutActionDto {
  @ApiProperty({ pattern: NAME_PATTERN.source, maxLength: 128 })
  @IsString()
  @MaxLength(128)
  @Matches(NAME_PATTERN, { message: `name ${NAME_PATTERN_MESSAGE}` })
  name!: string;

  @ApiProperty({ type: [String], description: 'environments watched (each must exist)' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsString({ each: true })
  environments!: string[];

  @ApiProperty({ enum: TRIGGERS, isArray: true })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(TRIGGERS, { each: true, message: `each trigger must be one of: ${TRIGGERS.join(', ')}` })
  triggers!: Trigger[];

  @ApiProperty({ type: [TargetDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => TargetDto)
  targets!: TargetDto[];

  @ApiPropertyOptional({
    type: [String],
    description: 'only artifacts from these flows trigger it (default: any)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  flows?: string[];

  @ApiPropertyOptional({
    enum: ['environment'],
    description: 'the kind of action (environment actions only)',
  })
  @IsOptional()
  @IsIn(['environment'])
  type?: 'environment';
}
