import Ajv from 'ajv';
import { schemaFieldErrors } from '#des/platform';

export type EvaluationRequest = {
  context: { trails: { flow: string; trail: string }[] };
  policy: { files: Record<string, string> };
  params?: Record<string, unknown>;
};

/** The spec's rules, exactly: no other properties anywhere but `params`, 1–100 trails, 1–100 files (the validator's schema, and the OpenAPI document's). */
export const EVALUATION_REQUEST_SCHEMA = {
  type: 'object',
  required: ['context', 'policy'],
  additionalProperties: false,
  properties: {
    context: {
      type: 'object',
      required: ['trails'],
      additionalProperties: false,
      properties: {
        trails: {
          type: 'array',
          minItems: 1,
          maxItems: 100,
          items: {
            type: 'object',
            required: ['flow', 'trail'],
            additionalProperties: false,
            properties: {
              flow: { type: 'string', pattern: '^[a-zA-Z0-9][a-zA-Z0-9\\.\\-_~]*$' },
              trail: { type: 'string', pattern: '^[a-zA-Z0-9][a-zA-Z0-9\\-_.~]*$' },
            },
          },
        },
      },
    },
    policy: {
      type: 'object',
      required: ['files'],
      additionalProperties: false,
      properties: {
        files: {
          type: 'object',
          minProperties: 1,
          maxProperties: 100,
          // Relative paths that stay inside the policy: no leading `/`, no `..` segment.
          propertyNames: { pattern: '^(?!/)(?!(.*/)?\\.\\.(/|$))[^\\\\\\u0000]+$' },
          additionalProperties: { type: 'string' },
        },
      },
    },
    params: { type: 'object' },
  },
} as const;

const validate = new Ajv({ allErrors: true }).compile<EvaluationRequest>(EVALUATION_REQUEST_SCHEMA);

export function parseEvaluationRequest(
  body: unknown,
): EvaluationRequest | { errors: Record<string, string> } {
  if (validate(body)) return body;
  return {
    errors: schemaFieldErrors(validate.errors, {
      message: (e) =>
        e.keyword === 'required'
          ? 'is required'
          : e.propertyName !== undefined || e.keyword === 'propertyNames'
            ? 'must be a relative path inside the policy'
            : undefined,
    }),
  };
}
