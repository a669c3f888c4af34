import Ajv from 'ajv';
import { schemaFieldErrors } from '#des/platform';

/** What a flow's trails must carry to be compliant: attestations by name, on the trail and per artifact. */
export interface FlowTemplate {
  trail?: { attestations?: { name: string; type: string }[] };
  artifacts?: { name: string; attestations?: { name: string; type: string }[] }[];
}

const NAME = '^[a-zA-Z0-9][a-zA-Z0-9\\-_.~]*$';
const attestations = {
  type: 'array',
  maxItems: 100,
  items: {
    type: 'object',
    required: ['name', 'type'],
    additionalProperties: false,
    properties: { name: { type: 'string', pattern: NAME }, type: { type: 'string', minLength: 1 } },
  },
};

/** A template, as validated (and as the OpenAPI document declares it). */
export const FLOW_TEMPLATE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    trail: { type: 'object', additionalProperties: false, properties: { attestations } },
    artifacts: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', pattern: NAME }, attestations },
      },
    },
  },
};

const validate = new Ajv({ allErrors: true }).compile<FlowTemplate>(FLOW_TEMPLATE_SCHEMA);

/** Field path (under `template`) → message for every problem, or none. */
export function templateErrors(template: unknown): Record<string, string> {
  return validate(template) ? {} : schemaFieldErrors(validate.errors, { root: 'template' });
}
