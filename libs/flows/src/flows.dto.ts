import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { AtQuery, IsPageNumber, IsPerPage } from '#des/platform';
import { FLOW_TEMPLATE_SCHEMA, type FlowTemplate, LEGACY_TEMPLATE_SCHEMA } from './flow-template';

export const FLOW_NAME = /^[a-zA-Z0-9][a-zA-Z0-9.\-_~]*$/;

export class PutFlowDto {
  @ApiProperty({ pattern: FLOW_NAME.source, maxLength: 128 })
  @IsString()
  @MaxLength(128)
  @Matches(FLOW_NAME, {
    message:
      'name \'$value\' is not a valid flow name: it must start with a letter or digit and contain only letters, digits, ".", "-", "_" and "~"',
  })
  name!: string;

  @ApiPropertyOptional({ maxLength: 5000 })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional({
    oneOf: [FLOW_TEMPLATE_SCHEMA, LEGACY_TEMPLATE_SCHEMA],
    description:
      'The attestations its trails must carry: on the trail, and on each named artifact. ' +
      "Or, as the Kosli CLI's `create flow` without a template file sends it, a list of attestation names " +
      '(`artifact` stands for the artifact itself): each other name becomes a trail attestation of any type',
  })
  @IsOptional()
  template?: FlowTemplate | string[];

  @ApiPropertyOptional({
    deprecated: true,
    description: "Accepted and ignored (the Kosli CLI's deprecated `--visibility`)",
  })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  visibility?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  tags?: Record<string, string>;
}

export class FlowTemplateAttestationView {
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The attestation type expected (e.g. `junit`)' }) type!: string;
}

export class FlowTemplateTrailView {
  @ApiPropertyOptional({ type: [FlowTemplateAttestationView] }) attestations?: FlowTemplateAttestationView[];
}

export class FlowTemplateArtifactView {
  @ApiProperty() name!: string;
  @ApiPropertyOptional({ type: [FlowTemplateAttestationView] }) attestations?: FlowTemplateAttestationView[];
}

/** What a flow's trails must carry to be compliant: attestations by name, on the trail and per artifact. */
export class FlowTemplateView implements FlowTemplate {
  @ApiPropertyOptional({ type: FlowTemplateTrailView }) trail?: FlowTemplateTrailView;
  @ApiPropertyOptional({ type: [FlowTemplateArtifactView] }) artifacts?: FlowTemplateArtifactView[];
}

/** A flow as `PUT` and `GET /flows/{org}` answer it. */
export class FlowView {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  // A $ref or null spelled out (FlowTemplateView registered by the controller's @ApiExtraModels):
  // `nullable` beside a $ref comes out as an allOf that null fails.
  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(FlowTemplateView) }, { type: 'null' }],
    description: 'null: no template',
  })
  template!: FlowTemplateView | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) tags!: Record<string, string>;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({
    description:
      'Last change of the flow (its description, template, tags, archiving or renaming); UNIX seconds',
  })
  last_modified_at!: number;
  @ApiProperty({ description: 'Archived flows refuse changes and are left out of the list' })
  archived!: boolean;
  @ApiProperty({ type: 'string', nullable: true, description: 'The name it had before a rename, if any' })
  renamed_from!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Set on the old name once the flow was renamed: where the flow lives now',
  })
  renamed_to!: string | null;
}

/** `GET /flows/{org}`: with `page` or `per_page`, a page (`{data, pagination}`); else every flow. */
export class FlowsQuery extends AtQuery {
  @IsPageNumber()
  page?: number;

  @IsPerPage(100, 20)
  per_page?: number;

  @ApiPropertyOptional({ maxLength: 256, description: 'Only flows whose name contains this' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  search_by_name?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'false: `search_by_name` ignores case' })
  @IsOptional()
  @IsIn(['true', 'false'])
  case_sensitive?: string;
}

export class FlowsPagination {
  @ApiProperty() page!: number;
  @ApiProperty() page_count!: number;
  @ApiProperty() total!: number;
  @ApiProperty() per_page!: number;
}

/** A page of flows, as `GET /flows/{org}?page=…&per_page=…` answers it. */
export class FlowsPage {
  @ApiProperty({ type: [FlowView] }) data!: FlowView[];
  @ApiProperty({ type: FlowsPagination }) pagination!: FlowsPagination;
}

/** `PUT /flows/{org}/{flow}/rename`. */
export class RenameFlowDto {
  @ApiProperty({ pattern: FLOW_NAME.source, maxLength: 128 })
  @IsString()
  @MaxLength(128)
  @Matches(FLOW_NAME, {
    message:
      'new_name \'$value\' is not a valid flow name: it must start with a letter or digit and contain only letters, digits, ".", "-", "_" and "~"',
  })
  new_name!: string;
}
