import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiError, JsonStringBody, jsonString, READ_STORE, Requires } from '#des/platform';
import type { Doc, ReadStore } from '#des/read-store';
import { accountId, API_KEYS, SERVICE_ACCOUNTS } from './accounts.projection';
import { Actor, CreateApiKey, CreateServiceAccount, RevokeApiKey } from './accounts.commands';
import type { AuthenticatedRequest } from './auth.guard';
import { KeyLookups } from './key-lookups';
import {
  ApiKeyView,
  CreateApiKeyDto,
  CreatedApiKeyView,
  CreateServiceAccountDto,
  ServiceAccountView,
} from './service-accounts.dto';

const actorOf = (req: AuthenticatedRequest): Actor => ({
  kind: 'service_account',
  name: req.principal.account,
});

function accountView(doc: Doc): ServiceAccountView {
  const { name, display_name, privilege, description, creating_user_id, created_at, for_webhook } =
    doc as never as ServiceAccountView;
  return { name, display_name, privilege, description, creating_user_id, created_at, for_webhook };
}

@ApiTags('service accounts')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('service-accounts')
export class ServiceAccountsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly keys: KeyLookups,
  ) {}

  @Post(':org')
  @ApiOperation({ operationId: 'createServiceAccount', summary: 'Create a service account' })
  @Requires('admin')
  @ApiCreatedResponse({ type: ServiceAccountView })
  async create(
    @Param('org') org: string,
    @Body() body: CreateServiceAccountDto,
    @Req() req: AuthenticatedRequest,
  ): Promise<ServiceAccountView> {
    const created = await this.commands.execute(
      new CreateServiceAccount(org, body.name, body.description ?? '', body.privilege, actorOf(req)),
    );
    return {
      name: created.name,
      display_name: created.name,
      privilege: created.privilege,
      description: created.description,
      creating_user_id: created.createdBy,
      created_at: created.createdAt,
      for_webhook: false,
    } satisfies ServiceAccountView;
  }

  @Get(':org')
  @ApiOperation({ operationId: 'listServiceAccounts', summary: 'List service accounts' })
  @Requires('reader')
  @ApiOkResponse({ type: [ServiceAccountView] })
  async list(@Param('org') org: string): Promise<ServiceAccountView[]> {
    const docs = await this.reads.collection(SERVICE_ACCOUNTS).find({ org }, { sort: { name: 1 } });
    return docs.map(accountView);
  }

  @Get(':org/:name')
  @ApiOperation({ operationId: 'getServiceAccount', summary: 'Read a service account' })
  @Requires('reader')
  @ApiOkResponse({ type: ServiceAccountView })
  async read(@Param('org') org: string, @Param('name') name: string): Promise<ServiceAccountView> {
    return accountView(await this.account(org, name));
  }

  @Post(':org/:name/api-keys')
  @ApiOperation({ operationId: 'createApiKey', summary: 'Create an API key for a service account' })
  @Requires('admin')
  @ApiCreatedResponse({ type: CreatedApiKeyView })
  async createKey(
    @Param('org') org: string,
    @Param('name') name: string,
    @Body() body: CreateApiKeyDto,
    @Req() req: AuthenticatedRequest,
  ): Promise<CreatedApiKeyView> {
    const created = await this.commands.execute(
      new CreateApiKey(org, name, body.description ?? '', body.expires_at ?? 0, actorOf(req)),
    );
    return {
      id: created.id,
      key: created.key,
      description: created.description,
      created_at: created.createdAt,
      expires_at: created.expiresAt,
    } satisfies CreatedApiKeyView;
  }

  @Get(':org/:name/api-keys')
  @ApiOperation({ operationId: 'listApiKeys', summary: "List a service account's active API keys" })
  @Requires('reader')
  @ApiOkResponse({ type: [ApiKeyView], description: 'Active keys only (neither expired nor revoked)' })
  async listKeys(@Param('org') org: string, @Param('name') name: string): Promise<ApiKeyView[]> {
    await this.account(org, name);
    const now = Date.now() / 1000;
    const docs = await this.reads.collection(API_KEYS).find(
      {
        org,
        service_account: name,
        revoked: false,
        $or: [{ expires_at: 0 }, { expires_at: { $gt: now } }],
      },
      { sort: { created_at: 1 } },
    );
    return docs.map((d): ApiKeyView => ({
      id: d._id,
      description: d.description as string,
      created_at: d.created_at as number,
      expires_at: d.expires_at as number,
      last_used_at: (d.last_used_at as number | null) ?? null,
    }));
  }

  @Delete(':org/:name/api-keys/:id')
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke an API key' })
  @Requires('admin')
  @HttpCode(200)
  @JsonStringBody()
  @ApiOkResponse({ type: String, description: '"API key revoked"' })
  async revokeKey(
    @Param('org') org: string,
    @Param('name') name: string,
    @Param('id') id: string,
    @Req() req: AuthenticatedRequest,
  ): Promise<string> {
    await this.commands.execute(new RevokeApiKey(org, name, id, actorOf(req)));
    this.keys.keyRevoked();
    return jsonString('API key revoked');
  }

  private async account(org: string, name: string): Promise<Doc> {
    const doc = await this.reads.collection(SERVICE_ACCOUNTS).findOne({ _id: accountId(org, name) });
    if (!doc) throw new ApiError(404, 'Service account not found');
    return doc;
  }
}
