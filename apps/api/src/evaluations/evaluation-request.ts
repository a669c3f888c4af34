import Ajv from 'ajv';

export type EvaluationRequest = {
  context: { trails: { flow: string; trail: string }[] };
  policy: { files: Record<string, string> };
  params?: Record<string, unknown>;
};

/** The spec's rules, exactly: no other properties anywhere but `params`, 1–100 trails, 1–100 files. */
const validate = new Ajv({ allErrors: true }).compile<EvaluationRequest>({
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
          additionalProperties: { type: 'string' },
        },
      },
    },
    params: { type: 'object' },
  },
});

export function parseEvaluationRequest(
  body: unknown,
): EvaluationRequest | { errors: Record<string, string> } {
  if (validate(body)) return body;
  const errors: Record<string, string> = {};
  for (const e of validate.errors ?? []) {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
    const p = e.params as { missingProperty?: string; additionalProperty?: string };
    const field = p.missingProperty ?? p.additionalProperty;
    const key = field ? (path ? `${path}.${field}` : field) : path || 'body';
    errors[key] ??= p.additionalProperty
      ? 'is not allowed'
      : p.missingProperty
        ? 'is required'
        : (e.message ?? 'is invalid');
  }
  return { errors };
}
