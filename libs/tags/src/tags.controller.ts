import { Body, Controller, HttpCode, Inject, Param, Patch, Req } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Command, CommandBus } from '@nestjs/cqrs';
import type { EventMetadata } from '#des/event-store';
import { MAX_TAG_KEY as MAX_KEY, MAX_TAG_VALUE as MAX_VALUE, TAG_KEY, TagChange } from '#des/kernel';
import { ApiError, JsonStringBody, jsonString, READ_STORE, Requires, VALIDATION_FAILED } from '#des/platform';
import { docReads, type ReadStore } from '#des/read-store';
import { AuthenticatedRequest, requestMetadata, requireFeature } from '#des/accounts';
import { ChangeFlow } from '#des/flows';
import { ChangeEnvironment } from '#des/environments';
import { ChangeControl } from '#des/controls';
import { ambiguousRepo, ChangeRepo, repoNamedOrIdentified, repoTags } from '#des/repos';
import { ACCEPTED_RESOURCE_TYPES, resourceOf, TaggableResource } from './resource-types';
import { TagPatchDto } from './tags.dto';

export const RESOURCE_NOT_FOUND = 'Resource not found';

/** Each bad key or value of a patch, by its field path. */
function patchErrors(body: TagPatchDto): Record<string, string> {
  const errors: Record<string, string> = {};
  const badKey = (key: string) =>
    !TAG_KEY.test(key) || key.length > MAX_KEY
      ? `tag keys start with a letter or digit, hold only letters, digits, "-", "_", "." and "~", and are at most ${MAX_KEY} characters`
      : undefined;
  for (const [key, value] of Object.entries(body.set_tags ?? {})) {
    const problem =
      badKey(key) ??
      (typeof value !== 'string' || value.length > MAX_VALUE
        ? `a tag value is a string of at most ${MAX_VALUE} characters`
        : undefined);
    if (problem) errors[`set_tags.${key}`] = problem;
  }
  (body.remove_tags ?? []).forEach((key, i) => {
    const problem = badKey(key);
    if (problem) errors[`remove_tags[${i}]`] = problem;
  });
  return errors;
}

type TagCommand = (org: string, id: string, change: TagChange, metadata: EventMetadata) => Command<unknown>;

/** Each resource's own aggregate takes its tag changes (`tags_changed` in its stream); a repository's, below. */
const tagCommands: Record<Exclude<TaggableResource, 'repo'>, TagCommand> = {
  flow: (org, name, change, m) => new ChangeFlow(org, { kind: 'change_tags', name, change }, m),
  environment: (org, name, change, m) => new ChangeEnvironment(org, { kind: 'change_tags', name, change }, m),
  control: (org, identifier, change, m) =>
    new ChangeControl(org, { kind: 'change_tags', identifier, change }, m),
};

/** Endpoint 7: tags on flows, environments, repositories and controls. */
@ApiTags('tags')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('tags')
export class TagsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  @Patch(':org/:resource_type/:resource_id')
  @ApiOperation({
    operationId: 'updateTags',
    summary: 'Set and remove tags on a flow, environment, repository or control',
  })
  @Requires('member')
  @HttpCode(200)
  @JsonStringBody()
  @ApiParam({ name: 'resource_type', enum: ACCEPTED_RESOURCE_TYPES })
  @ApiOkResponse({ type: String, description: '"Tags updated"' })
  async patch(
    @Param('org') org: string,
    @Param('resource_type') resourceType: string,
    @Param('resource_id') resourceId: string,
    @Body() body: TagPatchDto,
    @Req() req: AuthenticatedRequest,
  ): Promise<string> {
    const resource = resourceOf(resourceType);
    const errors = patchErrors(body);
    if (!resource) errors.resource_type = `must be one of: ${ACCEPTED_RESOURCE_TYPES.join(', ')}`;
    if (Object.keys(errors).length || !resource) throw new ApiError(400, VALIDATION_FAILED, errors);
    if (resource === 'control') await requireFeature(this.reads, org, 'controls');
    const change = { set_tags: body.set_tags ?? {}, remove_tags: body.remove_tags ?? [] };
    const metadata = requestMetadata(req);
    await this.commands.execute(
      resource === 'repo'
        ? await this.repoTagCommand(org, resourceId, change, metadata)
        : tagCommands[resource](org, resourceId, change, metadata),
    );
    return jsonString('Tags updated');
  }

  /**
   * A repository is registered by the trails that name it; its own stream
   * (by its id here) only holds tags. It is named by its id or by a name only
   * one repository has.
   */
  private async repoTagCommand(org: string, idOrName: string, change: TagChange, metadata: EventMetadata) {
    const lookup = await repoNamedOrIdentified(docReads(this.reads), org, idOrName);
    if (!lookup.found) {
      if (lookup.reason === 'ambiguous') throw new ApiError(400, ambiguousRepo(idOrName, lookup.providers));
      throw new ApiError(404, RESOURCE_NOT_FOUND);
    }
    const id = lookup.found.id as string;
    return new ChangeRepo(org, { kind: 'change_tags', id, change, shown: repoTags(lookup.found) }, metadata);
  }
}
