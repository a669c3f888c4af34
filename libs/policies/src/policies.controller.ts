import { Controller, Get, Inject, Param, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CommandBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import {
  ApiCreatedOrUpdated,
  ApiError,
  AtQuery,
  READ_STORE,
  ReadModelsAt,
  Requires,
  VALIDATION_FAILED,
} from '#des/platform';
import type { Doc, ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { PolicyEventView, PolicyVersionView, PolicyView } from './policies.dto';
import { ChangePolicy } from './policy.commands';
import { readUploadedPolicy } from './policy-document';
import type { PolicyType } from './policy.decider';
import { POLICY_PAYLOAD_SCHEMA, readPayload } from './policy-payload';
import { PolicyUploadGuard } from './policy-upload.guard';
import { POLICIES, policyId, policiesProjection } from './policies.projection';

/**
 * A policy as endpoint 8 answers it: every field of the spec's Policy table
 * (not its org, latest version or controls).
 */
const policyView = (doc: Doc): PolicyView => ({
  name: doc.name as string,
  description: doc.description as string,
  type: doc.type as PolicyType,
  archived: doc.archived as boolean,
  created_at: doc.created_at as number,
  last_modified_at: doc.last_modified_at as number,
  created_by: doc.created_by as string,
  events: doc.events as PolicyEventView[],
  versions: doc.versions as PolicyVersionView[],
  consuming_envs: [...((doc.consuming_envs as string[] | undefined) ?? [])].sort(),
});

/** The policy file's text: an uploaded file (`policy_file.0` or `policy_file`) or the text field `policy_file`. */
function policyText(req: Request): string | undefined {
  const files = (req.files ?? {}) as Record<string, Express.Multer.File[]>;
  const file = files['policy_file.0']?.[0] ?? files.policy_file?.[0];
  if (file) return file.buffer.toString('utf8');
  const field = (req.body as Record<string, unknown> | undefined)?.policy_file;
  return typeof field === 'string' ? field : undefined;
}

/** Environment policies (endpoint 8): YAML files, versioned. */
@ApiTags('policies')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('policies')
export class PoliciesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly history: ReadModelsAt,
  ) {}

  @Put(':org')
  @ApiOperation({ operationId: 'putPolicy', summary: 'Create or update a policy' })
  @ApiCreatedOrUpdated(PolicyView)
  @Requires('admin')
  @UseGuards(PolicyUploadGuard)
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['payload'],
      properties: {
        payload: { ...POLICY_PAYLOAD_SCHEMA, description: 'The policy: JSON, as a text part' },
        'policy_file.0': {
          type: 'string',
          format: 'binary',
          description: 'the policy YAML (at most 256 KiB)',
        },
        policy_file: { type: 'string', description: 'the policy YAML as text, instead of the file' },
      },
    },
    encoding: { payload: { contentType: 'application/json' } },
  })
  async put(
    @Param('org') org: string,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PolicyView> {
    const read = readPayload((req.body as Record<string, unknown> | undefined)?.payload);
    const text = policyText(req);
    const errors = 'errors' in read ? { ...read.errors } : {};
    if (text === undefined) errors.policy_file = 'is required: the policy YAML in policy_file.0';
    const policy = text === undefined ? undefined : await readUploadedPolicy(text);
    if (policy && 'errors' in policy) Object.assign(errors, policy.errors);
    if (Object.keys(errors).length || !('payload' in read) || text === undefined)
      throw new ApiError(400, VALIDATION_FAILED, errors);
    const { name, description, comment, type } = read.payload;
    const done = await this.commands.execute(
      new ChangePolicy(
        org,
        {
          kind: 'put_policy',
          name,
          description: description ?? '',
          comment: comment ?? '',
          type,
          yaml: text,
          author: req.principal.account,
        },
        requestMetadata(req),
      ),
    );
    res.status(done.events[0]?.type === 'policy_created' ? 201 : 200);
    return policyView(await this.policy(org, name));
  }

  @Get(':org')
  @ApiOperation({ operationId: 'listPolicies', summary: 'List policies' })
  @Requires('reader')
  @ApiOkResponse({ type: [PolicyView] })
  async list(@Param('org') org: string, @Query() { at }: AtQuery): Promise<PolicyView[]> {
    const reads = await this.readsAt(org, at);
    return (await reads.collection(POLICIES).find({ org }, { sort: { name: 1 } })).map(policyView);
  }

  @Get(':org/:name')
  @ApiOperation({ operationId: 'getPolicy', summary: 'Read a policy' })
  @Requires('reader')
  @ApiOkResponse({ type: PolicyView })
  async read(
    @Param('org') org: string,
    @Param('name') name: string,
    @Query() { at }: AtQuery,
  ): Promise<PolicyView> {
    return policyView(await this.policy(org, name, await this.readsAt(org, at)));
  }

  /** Policies, with the environments' attachments that make their `consuming_envs`. */
  private readsAt(org: string, at: number | undefined): Promise<ReadStore> {
    return this.history.readsFor(at, { org, projections: [policiesProjection] });
  }

  private async policy(org: string, name: string, reads: ReadStore = this.reads): Promise<Doc> {
    const doc = await reads.collection(POLICIES).findOne({ _id: policyId(org, name) });
    if (!doc) throw new ApiError(404, 'Policy not found');
    return doc;
  }
}
