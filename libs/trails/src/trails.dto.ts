import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { PageQuery } from '#des/platform';
import {
  IsArray,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';

export const TRAIL_NAME = /^[a-zA-Z0-9][a-zA-Z0-9\-_.~]*$/;

export class GitCommitInfoDto {
  @ApiProperty() @IsString() @MaxLength(128) sha1!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(10_000) message?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) author?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) branch?: string;
  @ApiPropertyOptional({ description: 'UNIX seconds' }) @IsOptional() @IsNumber() timestamp?: number;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) url?: string;
}

export class RepoInfoDto {
  @ApiProperty() @IsString() @MaxLength(512) name!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) url?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) provider?: string;
  // The rest of what the Kosli CLI sends as repo_info.
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(5000) description?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  namespace_path?: string[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  additional_info?: Record<string, unknown>;
}

/** Links the Kosli CLI sends (`--external-url name=url`): name → {url, fingerprint?}. */
const externalUrls = () =>
  ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'name → {url, fingerprint}',
  });

export class PutTrailDto {
  @ApiProperty({ pattern: TRAIL_NAME.source, maxLength: 256 })
  @IsString()
  @MaxLength(256)
  @Matches(TRAIL_NAME, {
    message: 'name must start with a letter or digit and contain only letters, digits, "-", "_", "." and "~"',
  })
  name!: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(5000) description?: string;

  @ApiPropertyOptional({ type: GitCommitInfoDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => GitCommitInfoDto)
  git_commit_info?: GitCommitInfoDto;

  @ApiPropertyOptional({ type: RepoInfoDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => RepoInfoDto)
  repo_info?: RepoInfoDto;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) origin_url?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  user_data?: Record<string, unknown>;

  @externalUrls() @IsOptional() @IsObject() external_urls?: Record<string, unknown>;
}

export class ReportArtifactDto {
  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: 'sha256 of the artifact, hex' })
  @IsString()
  @Matches(/^[0-9a-f]{64}$/, { message: 'fingerprint must be a sha256 digest: 64 lowercase hex digits' })
  fingerprint!: string;

  @ApiProperty() @IsString() @MaxLength(1024) filename!: string;

  @ApiProperty({ pattern: TRAIL_NAME.source })
  @IsString()
  @Matches(TRAIL_NAME, { message: 'trail_name is not a valid trail name' })
  trail_name!: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) git_commit?: string;

  @ApiPropertyOptional({ type: GitCommitInfoDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => GitCommitInfoDto)
  git_commit_info?: GitCommitInfoDto;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) build_url?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) commit_url?: string;

  @ApiPropertyOptional({ type: RepoInfoDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => RepoInfoDto)
  repo_info?: RepoInfoDto;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(256) template_reference_name?: string;

  // What the Kosli CLI sends beside every artifact.
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) repo_url?: string;
  @externalUrls() @IsOptional() @IsObject() external_urls?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  annotations?: Record<string, string>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  user_data?: Record<string, unknown>;
}

/** `GET /trails/{org}`: an organization's trails, a page at a time, as the Kosli CLI lists them. */
export class TrailsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only this flow' }) @IsOptional() @IsString() flow?: string;

  @ApiPropertyOptional({ description: 'Only trails with this artifact (sha256)' })
  @IsOptional()
  @IsString()
  fingerprint?: string;

  @ApiPropertyOptional({ description: 'Only flows with this tag: `key=value`' })
  @IsOptional()
  @IsString()
  @Matches(/^[^=]+=.*$/, { message: 'flow_tag is key=value' })
  flow_tag?: string;
}
