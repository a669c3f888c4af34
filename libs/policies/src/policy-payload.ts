import Ajv from 'ajv';
import { NAME_PATTERN, NAME_PATTERN_MESSAGE } from '#des/platform';
import { POLICY_TYPES, PolicyType } from './policy.decider';

export interface PolicyPayload {
  name: string;
  description?: string;
  comment?: string;
  type: PolicyType;
}

/** The `payload` part, as validated (and as the OpenAPI document declares it). */
export const POLICY_PAYLOAD_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type'],
  properties: {
    name: { type: 'string', pattern: NAME_PATTERN.source, maxLength: 128 },
    description: { type: 'string', maxLength: 5000 },
    comment: { type: 'string', maxLength: 5000 },
    type: { type: 'string', enum: [...POLICY_TYPES] },
  },
};

const validate = new Ajv({ allErrors: true }).compile<PolicyPayload>(POLICY_PAYLOAD_SCHEMA);

/** The `payload` part of endpoint 8: JSON text `{name, description, comment, type}`. */
export function readPayload(text: unknown): { payload: PolicyPayload } | { errors: Record<string, string> } {
  if (typeof text !== 'string')
    return { errors: { payload: 'is required: a JSON text part {name, description, comment, type}' } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { errors: { payload: 'is not valid JSON' } };
  }
  if (validate(value)) return { payload: value };
  const errors: Record<string, string> = {};
  for (const e of validate.errors ?? []) {
    const params = e.params as Record<string, string>;
    const field = params.additionalProperty ?? params.missingProperty ?? e.instancePath.slice(1);
    errors[`payload.${field}`] =
      e.keyword === 'additionalProperties'
        ? 'is not allowed'
        : e.keyword === 'required'
          ? 'is required'
          : e.keyword === 'enum'
            ? `must be one of: ${POLICY_TYPES.join(', ')}`
            : e.keyword === 'pattern'
              ? NAME_PATTERN_MESSAGE
              : (e.message ?? 'is invalid');
  }
  return { errors };
}
