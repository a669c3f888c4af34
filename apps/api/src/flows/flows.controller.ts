import { Body, Controller, Get, Inject, Param, Put, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { Response } from 'express';
import { ApiError, CommandExecutor, READ_STORE, Requires } from '../../../../libs/platform/src';
import type { ReadStore } from '../../../../libs/read-store/src';
import { withoutInternals } from '../../../../libs/projections/src/guarded-write';
import { AuthenticatedRequest, requestMetadata } from '../accounts/auth.guard';
import { flowDecider, flowStream } from './flow.decider';
import { FlowTemplate, templateErrors } from './flow-template';
import { FLOWS, flowId } from './flows.projection';

export const FLOW_NAME = /^[a-zA-Z0-9][a-zA-Z0-9.\-_~]*$/;

export class PutFlowDto {
  @ApiProperty({ pattern: FLOW_NAME.source, maxLength: 128 })
  @IsString()
  @MaxLength(128)
  @Matches(FLOW_NAME, {
    message: 'name must start with a letter or digit and contain only letters, digits, ".", "-", "_" and "~"',
  })
  name!: string;

  @ApiPropertyOptional({ maxLength: 5000 })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional({
    description: '{trail: {attestations: [{name, type}]}, artifacts: [{name, attestations: [...]}]}',
  })
  @IsOptional()
  @IsObject()
  template?: FlowTemplate;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  tags?: Record<string, string>;
}

@ApiTags('flows')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('flows')
export class FlowsController {
  constructor(
    private readonly executor: CommandExecutor,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  @Put(':org')
  @Requires('member')
  async put(
    @Param('org') org: string,
    @Body() body: PutFlowDto,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    const errors = body.template === undefined ? {} : templateErrors(body.template);
    const badTags = Object.entries(body.tags ?? {}).filter(([, v]) => typeof v !== 'string');
    for (const [k] of badTags) errors[`tags.${k}`] = 'tag values are strings';
    if (Object.keys(errors).length) throw new ApiError(400, 'Input payload validation failed', errors);
    const done = await this.executor.execute(
      flowStream(org, body.name),
      flowDecider,
      {
        name: body.name,
        description: body.description ?? '',
        template: body.template ?? null,
        tags: body.tags ?? {},
      },
      requestMetadata(req),
    );
    res.status(done.events[0]?.type === 'flow_created' ? 201 : 200);
    return withoutInternals((await this.reads.collection(FLOWS).findOne({ _id: flowId(org, body.name) }))!);
  }

  @Get(':org')
  @Requires('reader')
  async list(@Param('org') org: string) {
    return (await this.reads.collection(FLOWS).find({ org }, { sort: { name: 1 } })).map(withoutInternals);
  }

  @Get(':org/:flow')
  @Requires('reader')
  async read(@Param('org') org: string, @Param('flow') flow: string) {
    const doc = await this.reads.collection(FLOWS).findOne({ _id: flowId(org, flow) });
    if (!doc) throw new ApiError(404, 'Flow not found');
    return withoutInternals(doc);
  }
}
