import { Controller, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JsonStringBody, jsonString, Requires } from '#des/platform';

/**
 * `kosli update default-org`: Kosli keeps a default organization per user.
 * Here there are no users, only service accounts, and a key belongs to one
 * organization: its own is its default, always. Setting it to that one
 * answers 200 and changes nothing; another organization is refused by the
 * key check like any route of another organization (403).
 */
@ApiTags('service accounts')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('user')
export class DefaultOrgController {
  @Put(':org')
  @ApiOperation({
    operationId: 'setDefaultOrg',
    summary: "Set the key's default organization (the Kosli CLI's update default-org)",
    description:
      'A key belongs to one organization, its default: only that one is accepted, and nothing changes.',
  })
  // A PUT: member, as every write (though this one changes nothing).
  @Requires('member')
  @HttpCode(200)
  @JsonStringBody()
  @ApiOkResponse({ type: String, description: '"Default organization is <org>"' })
  setDefault(@Param('org') org: string): string {
    return jsonString(`Default organization is ${org}`);
  }
}
