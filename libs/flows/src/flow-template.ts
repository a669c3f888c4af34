import { NAMEABLE_ATTESTATION_TYPE, NAMEABLE_ATTESTATION_TYPES } from '#des/kernel';
import Ajv from 'ajv';
import { schemaFieldErrors } from '#des/platform';

/** What a flow's trails must carry to be compliant: attestations by name, on the trail and per artifact. */
export interface FlowTemplate {
  trail?: { attestations?: { name: string; type: string }[] };
  artifacts?: { name: string; attestations?: { name: string; type: string }[] }[];
}

const NAME = '^[a-zA-Z0-9][a-zA-Z0-9\\-_.~]*$';
/** The types a template may name (ADR 0028): an unknown type is refused. */
export const TEMPLATE_ATTESTATION_TYPES = NAMEABLE_ATTESTATION_TYPES;
const TYPE = NAMEABLE_ATTESTATION_TYPE;
const TYPE_MESSAGE = `must be ${TEMPLATE_ATTESTATION_TYPES.join(', ')} or custom:<custom attestation type>`;
const attestations = {
  type: 'array',
  maxItems: 100,
  items: {
    type: 'object',
    required: ['name', 'type'],
    additionalProperties: false,
    properties: { name: { type: 'string', pattern: NAME }, type: { type: 'string', pattern: TYPE } },
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

/** The Kosli CLI's legacy template: attestation names, `artifact` among them. */
export const LEGACY_TEMPLATE_SCHEMA = {
  type: 'array',
  maxItems: 100,
  items: { type: 'string', pattern: NAME },
};

const ajv = new Ajv({ allErrors: true });
const validate = ajv.compile<FlowTemplate>(FLOW_TEMPLATE_SCHEMA);
const validateLegacy = ajv.compile<string[]>(LEGACY_TEMPLATE_SCHEMA);

/** Field path (under `root`) → message for every problem, or none. */
export function templateErrors(template: unknown, root = 'template'): Record<string, string> {
  if (Array.isArray(template))
    return validateLegacy(template) ? {} : schemaFieldErrors(validateLegacy.errors, { root });
  if (validate(template)) return {};
  // A type that is no known one says which are.
  return schemaFieldErrors(validate.errors, {
    root,
    message: (e) =>
      e.keyword === 'pattern' && e.instancePath.endsWith('/type')
        ? `${TYPE_MESSAGE}, not '${String(pick(template, e.instancePath))}'`
        : undefined,
  });
}

function pick(value: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
      value,
    );
}

/**
 * A legacy template (names, as `kosli create flow` without a template file
 * sends them) as a template: `artifact` is the artifact itself, each other
 * name a trail attestation of any type.
 */
export function fromLegacyTemplate(names: string[]): FlowTemplate {
  const required = [...new Set(names.filter((n) => n !== 'artifact'))];
  return required.length ? { trail: { attestations: required.map((name) => ({ name, type: '*' })) } } : {};
}
