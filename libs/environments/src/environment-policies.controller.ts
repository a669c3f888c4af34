import { Body, Controller, Delete, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CommandBus } from '@nestjs/cqrs';
import { ApiError, READ_STORE, Requires } from '#des/platform';
import { docReads, type ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { policiesNamed } from '#des/policies';
import { ChangeEnvironment } from './environment.commands';
import { EnvironmentView, PolicyNamesDto } from './environments.dto';
import { environmentNamed } from './environments.queries';
import { environmentView, envUrl } from './environment-view';

/** Attaching environment policies: which policies decide an environment's compliance. */
@ApiTags('environments')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('environments')
export class EnvironmentPoliciesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  @Post(':org/:env/policies')
  @ApiOperation({ operationId: 'attachEnvironmentPolicies', summary: 'Attach policies to an environment' })
  @Requires('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: EnvironmentView, description: 'the environment, with its policies' })
  attach(
    @Param('org') org: string,
    @Param('env') env: string,
    @Body() body: PolicyNamesDto,
    @Req() req: AuthenticatedRequest,
  ) {
    return this.change('attach_policies', org, env, body.policy_names, req);
  }

  @Delete(':org/:env/policies')
  @ApiOperation({ operationId: 'detachEnvironmentPolicies', summary: 'Detach policies from an environment' })
  @Requires('admin')
  @ApiOkResponse({ type: EnvironmentView, description: 'the environment, with its policies' })
  detach(
    @Param('org') org: string,
    @Param('env') env: string,
    @Body() body: PolicyNamesDto,
    @Req() req: AuthenticatedRequest,
  ) {
    return this.change('detach_policies', org, env, body.policy_names, req);
  }

  private async change(
    kind: 'attach_policies' | 'detach_policies',
    org: string,
    env: string,
    names: string[],
    req: AuthenticatedRequest,
  ) {
    const found = await policiesNamed(docReads(this.reads), org, names);
    const errors: Record<string, string> = {};
    names.forEach((name, i) => {
      if (!found.some((p) => p.name === name)) errors[`policy_names[${i}]`] = `no policy '${name}'`;
    });
    if (Object.keys(errors).length) throw new ApiError(404, 'Policy not found', errors);
    await this.commands.execute(
      new ChangeEnvironment(org, { kind, name: env, policies: names }, requestMetadata(req)),
    );
    const doc = await environmentNamed(docReads(this.reads), org, env);
    if (!doc) throw new ApiError(404, 'Environment not found');
    return environmentView(doc, envUrl(req, org, env));
  }
}
