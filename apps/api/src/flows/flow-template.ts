import Ajv from 'ajv';

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

const validate = new Ajv({ allErrors: true }).compile<FlowTemplate>({
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
});

/** Field path (under `template`) → message for every problem, or none. */
export function templateErrors(template: unknown): Record<string, string> {
  if (validate(template)) return {};
  const errors: Record<string, string> = {};
  for (const e of validate.errors ?? []) {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part}`), 'template');
    const missing = e.params as { missingProperty?: string; additionalProperty?: string };
    const key = missing.missingProperty
      ? `${path}.${missing.missingProperty}`
      : missing.additionalProperty
        ? `${path}.${missing.additionalProperty}`
        : path;
    errors[key] ??= missing.additionalProperty ? 'is not allowed' : (e.message ?? 'is invalid');
  }
  return errors;
}
