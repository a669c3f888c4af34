import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Req } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import {
  ApiError,
  CommandExecutor,
  JsonStringBody,
  jsonString,
  READ_STORE,
  Requires,
} from '../../../../libs/platform/src';
import type { Doc, ReadStore } from '../../../../libs/read-store/src';
import { withoutInternals } from '../../../../libs/projections/src/guarded-write';
import { AuthenticatedRequest, requestMetadata } from '../accounts/auth.guard';
import { attestationTypeDecider, attestationTypeStream } from './attestation-type.decider';
import { ATTESTATION_TYPES_COLLECTION, attestationTypeId } from './attestation-types.projection';
import { jqRuleProblem, schemaProblems } from './custom-evaluation';

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

const typeView = (doc: Doc) => {
  const { org, ...rest } = withoutInternals(doc);
  void org;
  return rest;
};

@ApiTags('custom attestation types')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('custom-attestation-types')
export class AttestationTypesController {
  constructor(
    private readonly executor: CommandExecutor,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  @Post(':org')
  @Requires('member')
  async create(
    @Param('org') org: string,
    @Body() body: CreateAttestationTypeDto,
    @Req() req: AuthenticatedRequest,
  ) {
    const errors: Record<string, string> = {};
    const schemaError = schemaProblems(body.schema);
    if (schemaError) errors.schema = schemaError;
    const rules = body.jq_rules ?? [];
    for (const [i, rule] of rules.entries()) {
      const problem = await jqRuleProblem(rule);
      if (problem) errors[`jq_rules[${i}]`] = problem;
    }
    if (Object.keys(errors).length) throw new ApiError(400, 'Input payload validation failed', errors);
    await this.executor.execute(
      attestationTypeStream(org, body.name),
      attestationTypeDecider,
      {
        kind: 'create',
        name: body.name,
        description: body.description ?? '',
        schema: body.schema,
        jqRules: rules,
      },
      requestMetadata(req),
    );
    return typeView(await this.type(org, body.name));
  }

  @Get(':org')
  @Requires('reader')
  async list(@Param('org') org: string) {
    return (
      await this.reads.collection(ATTESTATION_TYPES_COLLECTION).find({ org }, { sort: { name: 1 } })
    ).map(typeView);
  }

  @Get(':org/:name')
  @Requires('reader')
  async read(@Param('org') org: string, @Param('name') name: string) {
    return typeView(await this.type(org, name));
  }

  /** Endpoint 14: archived types stay readable and refuse new attestations. */
  @Put(':org/:name/archive')
  @Requires('member')
  @HttpCode(200)
  @JsonStringBody()
  async archive(@Param('org') org: string, @Param('name') name: string, @Req() req: AuthenticatedRequest) {
    await this.executor.execute(
      attestationTypeStream(org, name),
      attestationTypeDecider,
      { kind: 'archive', name },
      requestMetadata(req),
    );
    return jsonString('Custom attestation type archived');
  }

  private async type(org: string, name: string): Promise<Doc> {
    const doc = await this.reads
      .collection(ATTESTATION_TYPES_COLLECTION)
      .findOne({ _id: attestationTypeId(org, name) });
    if (!doc) throw new ApiError(404, 'Custom attestation type not found');
    return doc;
  }
}
