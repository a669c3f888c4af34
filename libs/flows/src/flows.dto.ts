import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { FLOW_TEMPLATE_SCHEMA, type FlowTemplate } from './flow-template';

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
    ...(FLOW_TEMPLATE_SCHEMA as ApiPropertyOptions),
    description: 'The attestations its trails must carry: on the trail, and on each named artifact',
  })
  @IsOptional()
  @IsObject()
  template?: FlowTemplate;

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
  @ApiProperty({ description: 'Last change of the flow (its description, template or tags); UNIX seconds' })
  last_modified_at!: number;
}
