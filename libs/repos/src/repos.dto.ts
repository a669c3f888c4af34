import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { AtQuery, PageQuery } from '#des/platform';

/** A repository as `GET /repos/{org}` lists it: registered from the `repo_info` of trails and artifacts. */
export class RepoView {
  @ApiProperty({ description: "The repository's id here: tags and `?id=` take it" }) id!: string;
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'As the latest trail or artifact naming it gave it; null: none',
  })
  url!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'As the latest trail or artifact naming it gave it; null: none',
  })
  provider!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The provider's own id of the repository (`repo_info.id`); null: not given",
  })
  repo_id!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) tags!: Record<string, string>;
}

/** A page of repositories (the Kosli CLI reads this page). */
export class ReposPage {
  @ApiProperty({ type: [RepoView], description: 'By name, then by id' }) repos!: RepoView[];
  @ApiProperty() page!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty() total_pages!: number;
  @ApiProperty() total_count!: number;
}

const asList = ({ value }: { value: unknown }) =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

/** `GET /repos/{org}`: filters, order and page (what `kosli list repos` sends). */
export class ReposQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'The exact name' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  name?: string;

  @ApiPropertyOptional({ description: 'Names holding this text, in any case' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  search?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) provider?: string;

  @ApiPropertyOptional({ description: "The provider's own id of the repository" })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  repo_id?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'A tag as `key` or `key:value`; repeated: every one must match',
  })
  @IsOptional()
  @Transform(asList)
  @IsArray()
  @IsString({ each: true })
  @MaxLength(1200, { each: true })
  tag?: string[];

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'asc' })
  @IsOptional()
  @IsIn(['asc', 'desc'], { message: 'sort_direction must be one of: asc, desc' })
  sort_direction?: 'asc' | 'desc';
}

/** `GET /repos/{org}/{name}`: which of the repositories of that name, at which instant. */
export class RepoQuery extends AtQuery {
  @ApiPropertyOptional({ description: 'The provider, when repositories of several providers share the name' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  provider?: string;

  @ApiPropertyOptional({ description: "The repository's id here: the path's name is then ignored" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  id?: string;
}
