import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { AtQuery, IsInstant, IsPageNumber, IsPerPage } from '#des/platform';

const INSTANT = { oneOf: [{ type: 'number' }, { type: 'string', format: 'date-time' }] };
const NAME = '[a-zA-Z0-9][a-zA-Z0-9\\-_.~]*';

/** The population's filters: the period, the environments, and the pin (`at`). */
export class PopulationQuery extends AtQuery {
  @ApiPropertyOptional({
    ...INSTANT,
    description: 'Changes that started at or after this instant (default: 30 days before `to`)',
  })
  @IsOptional()
  @IsInstant('from')
  from?: number;

  @ApiPropertyOptional({
    ...INSTANT,
    description: 'Changes that started before this instant (default: `at`)',
  })
  @IsOptional()
  @IsInstant('to')
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

export class ChangesQuery extends PopulationQuery {
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
