import Ajv, { type ErrorObject } from 'ajv';
import { NAMEABLE_ATTESTATION_TYPE } from '#des/kernel';
import {
  ApiError,
  parseBoundedYaml,
  parseTenantYaml,
  RETRY_AFTER_SECONDS,
  STORED_YAML,
  YAML_LIMITS,
  type YamlLimits,
  YamlRefusal,
} from '#des/platform';
import { ExpressionError, parseExpression } from './policy-expression';

/** An environment policy (DESIGN §10), as its YAML says it. */
export interface EnvironmentPolicy {
  _schema: string;
  artifacts?: {
    provenance?: Requirement;
    'trail-compliance'?: Requirement;
    attestations?: AttestationRule[];
  };
}
export interface Exception {
  if: string;
}
export interface Requirement {
  required?: boolean;
  exceptions?: Exception[];
}
export interface AttestationRule {
  name: string;
  type: string;
  if?: string;
  must_be_compliant?: boolean;
  /** The control (its identifier) this rule gives evidence for. */
  for_control?: string;
  exceptions?: Exception[];
}

const exceptions = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['if'],
    properties: { if: { type: 'string' } },
  },
};
const requirement = {
  type: 'object',
  additionalProperties: false,
  properties: { required: { type: 'boolean' }, exceptions },
};
/** `*` (any), a built-in type, or `custom:<custom attestation type>`: as a flow template names them. */
const ATTESTATION_TYPE = NAMEABLE_ATTESTATION_TYPE;

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['_schema'],
  properties: {
    _schema: { type: 'string', minLength: 1 },
    artifacts: {
      type: 'object',
      additionalProperties: false,
      properties: {
        provenance: requirement,
        'trail-compliance': requirement,
        attestations: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'type'],
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 256 },
              type: { type: 'string', pattern: ATTESTATION_TYPE },
              if: { type: 'string' },
              must_be_compliant: { type: 'boolean' },
              for_control: { type: 'string', minLength: 1, maxLength: 128 },
              exceptions,
            },
          },
        },
      },
    },
  },
};

const validate = new Ajv({ allErrors: true, strict: true }).compile<EnvironmentPolicy>(schema);

/** `/artifacts/attestations/0/name` → `artifacts.attestations[0].name`. */
function fieldPath(pointer: string, child?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .concat(child ?? []);
  return parts.reduce(
    (path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part),
    '',
  );
}

function describe(error: ErrorObject): [string, string] {
  const params = error.params as Record<string, string>;
  if (error.keyword === 'additionalProperties')
    return [fieldPath(error.instancePath, params.additionalProperty), 'is not allowed'];
  if (error.keyword === 'required')
    return [fieldPath(error.instancePath, params.missingProperty), 'is required'];
  if (error.keyword === 'pattern')
    return [
      fieldPath(error.instancePath),
      'must be *, generic, junit, snyk, pull_request, jira, sonar, decision or custom:<type name>',
    ];
  return [fieldPath(error.instancePath) || 'policy', error.message ?? 'is invalid'];
}

/** Every `if` of the policy with its field path. */
function expressions(policy: EnvironmentPolicy): [string, string][] {
  const found: [string, string][] = [];
  const artifacts = policy.artifacts ?? {};
  for (const key of ['provenance', 'trail-compliance'] as const)
    artifacts[key]?.exceptions?.forEach((e, i) => found.push([`artifacts.${key}.exceptions[${i}].if`, e.if]));
  artifacts.attestations?.forEach((rule, i) => {
    if (rule.if !== undefined) found.push([`artifacts.attestations[${i}].if`, rule.if]);
    rule.exceptions?.forEach((e, j) =>
      found.push([`artifacts.attestations[${i}].exceptions[${j}].if`, e.if]),
    );
  });
  return found;
}

type ReadPolicy = { policy: EnvironmentPolicy } | { errors: Record<string, string> };

/**
 * The policy file, checked: valid YAML within `limits` (an upload passes
 * YAML_LIMITS; a stored version is read as it was accepted), the keys of
 * DESIGN §10 and nothing else, and every `if` a valid expression. Errors map a
 * field path to what is wrong; a document over the size limit throws 413.
 * Parsed on the event loop: for stored versions, which were uploaded within
 * the limits; an upload is read with readUploadedPolicy.
 */
export function readPolicy(text: string, limits: YamlLimits = STORED_YAML): ReadPolicy {
  let document: unknown;
  try {
    document = parseBoundedYaml(text, limits);
  } catch (error) {
    return refused(error, limits);
  }
  return checkPolicy(document);
}

/** An uploaded policy file, read as readPolicy reads one, its YAML parsed off the event loop (parseTenantYaml). */
export async function readUploadedPolicy(text: string): Promise<ReadPolicy> {
  let document: unknown;
  try {
    document = await parseTenantYaml(text, YAML_LIMITS);
  } catch (error) {
    return refused(error, YAML_LIMITS);
  }
  return checkPolicy(document);
}

function refused(error: unknown, limits: YamlLimits): ReadPolicy {
  if (!(error instanceof YamlRefusal)) return { errors: { policy_file: `not valid YAML: ${String(error)}` } };
  if (error.status === 413) throw policyTooLarge(limits);
  if (error.status === 503)
    throw new ApiError(503, `The policy ${error.message}`, null, {
      'Retry-After': String(RETRY_AFTER_SECONDS),
    });
  const said = error.kind === 'syntax' ? `not valid YAML: ${error.message}` : `the policy ${error.message}`;
  return { errors: { policy_file: said } };
}

function checkPolicy(document: unknown): ReadPolicy {
  if (!validate(document)) return { errors: Object.fromEntries((validate.errors ?? []).map(describe)) };
  const errors: Record<string, string> = {};
  for (const [path, source] of expressions(document)) {
    try {
      parseExpression(source);
    } catch (error) {
      if (error instanceof ExpressionError) errors[path] = `not a valid expression: ${error.message}`;
      else throw error;
    }
  }
  return Object.keys(errors).length ? { errors } : { policy: document };
}

/** 413 for a policy file over the YAML size limit, naming the field. */
export function policyTooLarge(limits: YamlLimits): ApiError {
  const kib = limits.maxBytes / 1024;
  return new ApiError(413, `Policy file exceeds the ${kib} KiB limit`, {
    policy_file: `a policy is a YAML document of at most ${kib} KiB`,
  });
}

/** The controls a policy's attestation rules name (`for_control`); none when the text is not a valid policy. */
export function controlsNamed(text: string): string[] {
  const read = readPolicy(text);
  if (!('policy' in read)) return [];
  const named = (read.policy.artifacts?.attestations ?? []).flatMap((rule) => rule.for_control ?? []);
  return [...new Set(named)].sort();
}
