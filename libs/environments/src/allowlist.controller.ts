import { Body, Controller, Get, HttpCode, Inject, Param, Put, Query, Req } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { CommandBus } from '@nestjs/cqrs';
import { ApiError, AtQuery, READ_STORE, ReadModelsAt, Requires } from '#des/platform';
import { docReads, type ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { allowlistOf, allowlistsProjection, ChangeAllowlist, type AllowlistDoc } from '#des/policies';
import { environmentNamed } from './environments.queries';
import { environmentsProjection } from './environments.projection';

/** `PUT /allowlists/{org}/{env}`: the Kosli CLI's `allow artifact`. */
export class AllowArtifactDto {
  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: 'sha256, hex' })
  @IsString()
  @Matches(/^[0-9a-f]{64}$/, {
    message: 'artifact_fingerprint must be a sha256 digest: 64 lowercase hex digits',
  })
  artifact_fingerprint!: string;

  @ApiPropertyOptional({ maxLength: 1024 })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  artifact_name?: string;

  @ApiProperty({ minLength: 1, maxLength: 5000, description: 'Why the artifact is allowed (`--reason`)' })
  @IsString()
  @MinLength(1)
  @MaxLength(5000)
  description!: string;
}

/** An artifact allowed in an environment. */
export class AllowlistEntryView {
  @ApiProperty() environment!: string;
  @ApiProperty({ description: 'sha256, hex' }) fingerprint!: string;
  @ApiProperty() artifact_name!: string;
  @ApiProperty({ description: 'Why it is allowed' }) description!: string;
  @ApiProperty({ description: 'When it was first allowed; UNIX seconds' }) created_at!: number;
  @ApiProperty({ description: 'When it was last allowed (the latest reason); UNIX seconds' })
  allowed_at!: number;
}

const entryView = (doc: AllowlistDoc): AllowlistEntryView => ({
  environment: doc.environment,
  fingerprint: doc.fingerprint,
  artifact_name: doc.artifact_name,
  description: doc.description,
  created_at: doc.created_at,
  allowed_at: doc.allowed_at,
});

/**
 * Environments' allow-lists: an artifact allowed in an environment is
 * compliant there whatever its evidence (`running-assessment.ts`); allowing
 * one re-assesses what runs there (the compliance reaction).
 */
@ApiTags('environments')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('allowlists')
export class AllowlistController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly history: ReadModelsAt,
  ) {}

  @Put(':org/:env')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'allowArtifact',
    summary: 'Allow an artifact in an environment: it counts as compliant there',
  })
  @Requires('admin')
  @ApiOkResponse({ type: AllowlistEntryView })
  async allow(
    @Param('org') org: string,
    @Param('env') env: string,
    @Body() body: AllowArtifactDto,
    @Req() req: AuthenticatedRequest,
  ): Promise<AllowlistEntryView> {
    if (!(await environmentNamed(docReads(this.reads), org, env)))
      throw new ApiError(404, 'Environment not found');
    await this.commands.execute(
      new ChangeAllowlist(
        org,
        {
          kind: 'allow_artifact',
          environment: env,
          fingerprint: body.artifact_fingerprint,
          artifact_name: body.artifact_name ?? '',
          description: body.description,
        },
        requestMetadata(req),
      ),
    );
    const entries = await allowlistOf(docReads(this.reads), org, env);
    return entryView(entries.find((e) => e.fingerprint === body.artifact_fingerprint)!);
  }

  @Get(':org/:env')
  @ApiOperation({ operationId: 'listAllowlist', summary: "An environment's allow-list, by fingerprint" })
  @Requires('reader')
  @ApiOkResponse({ type: [AllowlistEntryView] })
  async list(
    @Param('org') org: string,
    @Param('env') env: string,
    @Query() { at }: AtQuery,
  ): Promise<AllowlistEntryView[]> {
    const reads = docReads(
      await this.history.readsFor(at, {
        org,
        projections: [environmentsProjection, allowlistsProjection],
        within: env,
      }),
    );
    if (!(await environmentNamed(reads, org, env))) throw new ApiError(404, 'Environment not found');
    return (await allowlistOf(reads, org, env)).map(entryView);
  }
}
