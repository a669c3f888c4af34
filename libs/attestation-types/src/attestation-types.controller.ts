import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Req } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { CommandBus } from '@nestjs/cqrs';
import {
  AcceptsDataJson,
  ApiError,
  AtQuery,
  JsonStringBody,
  jsonString,
  READ_STORE,
  ReadModelsAt,
  Requires,
  readUploadedPart,
  type UploadedPart,
  VALIDATION_FAILED,
} from '#des/platform';
import type { Doc, ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { ChangeAttestationType } from './attestation-type.commands';
import { typeNotFound } from './attestation-type.decider';
import {
  AttestationTypeFormDto,
  AttestationTypeOneVersionView,
  AttestationTypeVersionQuery,
  AttestationTypeVersionView,
  AttestationTypeView,
  CreateAttestationTypeDto,
  SummaryEntryDto,
} from './attestation-types.dto';
import {
  ATTESTATION_TYPES_COLLECTION,
  attestationTypeId,
  attestationTypesProjection,
} from './attestation-types.projection';
import { CustomEvaluator } from './custom-evaluation';

/** A custom type document as the API shows it: every field but the store's own (a description only when it has one). */
const typeView = (doc: Doc): AttestationTypeView => ({
  name: doc.name as string,
  org: doc.org as string,
  ...(doc.description ? { description: doc.description as string } : {}),
  schema: doc.schema as Record<string, unknown>,
  jq_rules: doc.jq_rules as string[],
  summary: (doc.summary as SummaryEntryDto[] | undefined) ?? [],
  archived: doc.archived as boolean,
  created_at: doc.created_at as number,
  created_by: doc.created_by as string | null,
  last_modified_at: doc.last_modified_at as number,
  versions: doc.versions as AttestationTypeVersionView[],
  // Only once archived (left out until then).
  archived_at: doc.archived_at as number | undefined,
});

@ApiTags('custom attestation types')
@ApiExtraModels(AttestationTypeFormDto, AttestationTypeView, AttestationTypeOneVersionView)
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('custom-attestation-types')
export class AttestationTypesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly history: ReadModelsAt,
    private readonly custom: CustomEvaluator,
  ) {}

  @Post(':org')
  @ApiOperation({
    operationId: 'createCustomAttestationType',
    summary: 'Create a custom attestation type, or its next version',
    description:
      'Create or update: a type that exists gets a new version when the definition (description, schema, ' +
      'jq rules, summary) differs from its latest, and is unchanged when it is the same.',
  })
  @Requires('member')
  @AcceptsDataJson(fromKosliForm, {
    dataJson: AttestationTypeFormDto,
    files: { type_schema: { description: 'The JSON Schema the data must match, as a JSON file' } },
  })
  @ApiCreatedResponse({ type: AttestationTypeView })
  async create(
    @Param('org') org: string,
    @Body() body: CreateAttestationTypeDto,
    @Req() req: AuthenticatedRequest,
  ): Promise<AttestationTypeView> {
    const rules = body.jq_rules ?? [];
    const summary = (body.summary ?? []).map(({ name, expression }) => ({ name, expression }));
    const errors = {
      ...(await this.custom.problems(org, body.schema, rules)),
      ...(await this.summaryProblems(org, summary)),
    };
    if (Object.keys(errors).length) throw new ApiError(400, 'Input payload validation failed', errors);
    await this.commands.execute(
      new ChangeAttestationType(
        org,
        {
          kind: 'create',
          org,
          name: body.name,
          description: body.description ?? '',
          schema: body.schema,
          jqRules: rules,
          summary,
        },
        requestMetadata(req),
      ),
    );
    return typeView(await this.type(org, body.name));
  }

  @Get(':org')
  @ApiOperation({ operationId: 'listCustomAttestationTypes', summary: 'List custom attestation types' })
  @Requires('reader')
  @ApiOkResponse({ type: [AttestationTypeView] })
  async list(@Param('org') org: string, @Query() { at }: AtQuery): Promise<AttestationTypeView[]> {
    const reads = await this.history.readsFor(at, { org, projections: [attestationTypesProjection] });
    return (await reads.collection(ATTESTATION_TYPES_COLLECTION).find({ org }, { sort: { name: 1 } })).map(
      typeView,
    );
  }

  @Get(':org/:name')
  @ApiOperation({ operationId: 'getCustomAttestationType', summary: 'Read a custom attestation type' })
  @Requires('reader')
  @ApiOkResponse({
    description: 'The type; with `?version=N`, that version alone',
    schema: {
      anyOf: [
        { $ref: getSchemaPath(AttestationTypeView) },
        { $ref: getSchemaPath(AttestationTypeOneVersionView) },
      ],
    },
  })
  async read(
    @Param('org') org: string,
    @Param('name') name: string,
    @Query() { at, version }: AttestationTypeVersionQuery,
  ): Promise<AttestationTypeView | AttestationTypeOneVersionView> {
    const reads = await this.history.readsFor(at, {
      org,
      projections: [attestationTypesProjection],
      within: name,
    });
    const type = typeView(await this.type(org, name, reads));
    if (version === undefined) return type;
    const one = /^[1-9]\d*$/.test(version) ? type.versions[Number(version) - 1] : undefined;
    // Kosli's words (the CLI prints them).
    if (!one)
      throw new ApiError(404, `version ${version} does not exist for custom attestation type '${name}'`);
    const { description, archived } = type;
    return { name, org, ...(description ? { description } : {}), archived, versions: [one] };
  }

  /** Endpoint 14: archived types stay readable and refuse new attestations. */
  @Put(':org/:name/archive')
  @ApiOperation({ operationId: 'archiveCustomAttestationType', summary: 'Archive a custom attestation type' })
  @Requires('member')
  @HttpCode(200)
  @JsonStringBody()
  @ApiOkResponse({ schema: { type: 'string' }, description: '"Custom attestation type archived"' })
  async archive(
    @Param('org') org: string,
    @Param('name') name: string,
    @Req() req: AuthenticatedRequest,
  ): Promise<string> {
    await this.commands.execute(
      new ChangeAttestationType(org, { kind: 'archive', org, name }, requestMetadata(req)),
    );
    return jsonString('Custom attestation type archived');
  }

  private async type(org: string, name: string, reads: ReadStore = this.reads): Promise<Doc> {
    const doc = await reads
      .collection(ATTESTATION_TYPES_COLLECTION)
      .findOne({ _id: attestationTypeId(org, name) });
    if (!doc) throw new ApiError(404, typeNotFound(org, name));
    return doc;
  }

  /** Summary expressions that do not compile, as `summary[i].expression`. */
  private async summaryProblems(
    org: string,
    summary: { expression: string }[],
  ): Promise<Record<string, string>> {
    if (!summary.length) return {};
    const found = await this.custom.problems(
      org,
      {},
      summary.map((s) => s.expression),
    );
    return Object.fromEntries(
      Object.entries(found).map(([key, problem]) => [
        key.replace(/^jq_rules\[(\d+)\]$/, 'summary[$1].expression'),
        problem,
      ]),
    );
  }
}

/**
 * `kosli create attestation-type`: data_json holds the name, description and
 * `evaluator: {content_type: "jq", rules}`; the JSON schema comes as the file
 * `type_schema` (none: any data is valid). Other fields are passed on, so the
 * body's own validation still refuses what it does not know.
 */
async function fromKosliForm(dataJson: Record<string, unknown>, parts: UploadedPart[]): Promise<unknown> {
  const { evaluator, ...rest } = dataJson as { evaluator?: { content_type?: unknown; rules?: unknown } };
  if (evaluator !== undefined && evaluator?.content_type !== 'jq')
    throw new ApiError(400, VALIDATION_FAILED, { 'evaluator.content_type': 'only jq rules are evaluated' });
  const file = parts.find((p) => p.field === 'type_schema');
  let schema: unknown = {};
  if (file) {
    const text = (await readUploadedPart(file)).toString('utf8');
    try {
      schema = JSON.parse(text);
    } catch {
      throw new ApiError(400, VALIDATION_FAILED, { type_schema: 'not JSON' });
    }
  }
  return { ...rest, schema, ...(evaluator ? { jq_rules: evaluator.rules } : {}) };
}
