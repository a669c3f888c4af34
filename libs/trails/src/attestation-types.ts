import Ajv from 'ajv/dist/2020';
import { schemaFieldErrors } from '#des/platform';

import type { AttestationContext, AttestationType } from './trail.events';

const NAME = '^[a-zA-Z0-9][a-zA-Z0-9\\-_.~]*$';
const SHA256 = '^[0-9a-f]{64}$';

/** The Kosli CLI's `--external-url name=url` and `--external-fingerprint name=sha256`: name → {href, fingerprint}. */
export const EXTERNAL_URLS = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    properties: {
      href: { type: 'string', maxLength: 2048 },
      url: { type: 'string', maxLength: 2048 },
      fingerprint: { type: 'string', pattern: SHA256 },
    },
  },
  description:
    'name → {href, fingerprint}: links to evidence kept elsewhere, with the sha256 of what they link to',
};
const common = {
  attestation_name: {
    type: 'string',
    pattern: NAME,
    maxLength: 128,
    description: "The attestation's name: the template's name for it, when the trail's template asks for it",
  },
  description: { type: 'string', maxLength: 5000 },
  artifact_fingerprint: {
    type: 'string',
    pattern: SHA256,
    description: "The sha256 of one of the trail's artifacts the attestation is about",
  },
  target_artifacts: {
    type: 'array',
    minItems: 1,
    maxItems: 100,
    items: { type: 'string', minLength: 1, maxLength: 256 },
    description: "Names of the trail's artifacts the attestation is about (instead of artifact_fingerprint)",
  },
  origin_url: { type: 'string', maxLength: 2048, description: 'Where the evidence came from (a CI run)' },
  user_data: { type: 'object', description: 'Any JSON object, kept as it is' },
  // What the Kosli CLI sends beside every attestation.
  git_commit_info: { type: 'object' },
  repo_info: { type: 'object' },
  external_urls: EXTERNAL_URLS,
  annotations: { type: 'object', additionalProperties: { type: 'string' } },
};

/** Each type's own fields, and how it decides compliance (as the field's CLI does). */
const TYPES: Record<
  AttestationType,
  { properties: Record<string, unknown>; required: string[]; compliant: (body: Body) => boolean }
> = {
  generic: {
    properties: { is_compliant: { type: 'boolean' } },
    required: [],
    compliant: (b) => b.is_compliant !== false,
  },
  junit: {
    properties: {
      junit_results: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          // `tests` as the spec names it, or `total` as the Kosli CLI computes it.
          required: ['name', 'failures', 'errors'],
          anyOf: [{ required: ['tests'] }, { required: ['total'] }],
          properties: {
            name: { type: 'string' },
            tests: { type: 'integer', minimum: 0 },
            total: { type: 'integer', minimum: 0 },
            timestamp: { type: 'number' },
            failures: { type: 'integer', minimum: 0 },
            errors: { type: 'integer', minimum: 0 },
            skipped: { type: 'integer', minimum: 0 },
            duration: { type: 'number', minimum: 0 },
          },
        },
      },
    },
    required: ['junit_results'],
    compliant: (b) =>
      (b.junit_results as { failures: number; errors: number }[]).every(
        (s) => s.failures === 0 && s.errors === 0,
      ),
  },
  snyk: {
    properties: {
      // The spec's `vulnerabilities`, or the counts per scan the Kosli CLI makes of a SARIF file.
      snyk_results: {
        type: 'object',
        anyOf: [{ required: ['vulnerabilities'] }, { required: ['results'] }],
        properties: {
          vulnerabilities: { type: 'array', items: { type: 'object' } },
          schema_version: { type: 'integer' },
          tool: { type: 'object' },
          results: {
            type: 'array',
            items: {
              type: 'object',
              required: ['high_count', 'medium_count', 'low_count'],
              properties: {
                high_count: { type: 'integer', minimum: 0 },
                medium_count: { type: 'integer', minimum: 0 },
                low_count: { type: 'integer', minimum: 0 },
              },
            },
          },
        },
      },
    },
    required: ['snyk_results'],
    compliant: (b) => snykFindings(b.snyk_results as SnykResults) === 0,
  },
  pull_request: {
    properties: {
      // Which provider the Kosli CLI asked (github, gitlab, bitbucket, azure).
      git_provider: { type: 'string', maxLength: 64 },
      // null: the CLI found none.
      pull_requests: {
        type: ['array', 'null'],
        items: {
          type: 'object',
          required: ['url'],
          properties: {
            url: { type: 'string' },
            state: { type: 'string' },
            author: { type: 'string' },
            title: { type: 'string' },
          },
        },
      },
    },
    required: ['pull_requests'],
    compliant: (b) => ((b.pull_requests as unknown[] | null) ?? []).length > 0,
  },
  custom: {
    properties: {
      type_name: { type: 'string', pattern: NAME, maxLength: 128 },
      attestation_data: {},
    },
    required: ['type_name', 'attestation_data'],
    // Decided against the custom type's schema and jq rules by the caller (evaluateCustom).
    compliant: () => false,
  },
  jira: {
    properties: {
      // The Kosli CLI sends issue_id, issue_url, issue_exists and issue_fields; the spec's form names issue_key.
      jira_results: {
        type: 'array',
        items: {
          type: 'object',
          required: ['issue_exists'],
          anyOf: [{ required: ['issue_key'] }, { required: ['issue_id'] }],
          properties: {
            issue_key: { type: 'string' },
            issue_id: { type: 'string' },
            issue_url: { type: 'string' },
            issue_exists: { type: 'boolean' },
            summary: { type: 'string' },
            issue_fields: { type: 'object' },
          },
        },
      },
    },
    required: ['jira_results'],
    // At least one issue referenced, and every one found.
    compliant: (b) => {
      const issues = b.jira_results as { issue_exists: boolean }[];
      return issues.length > 0 && issues.every((i) => i.issue_exists);
    },
  },
  sonar: {
    properties: {
      // What the Kosli CLI reads of a SonarQube analysis (camelCase, as Sonar names it).
      sonar_results: {
        type: 'object',
        properties: {
          serverUrl: { type: 'string' },
          taskId: { type: 'string' },
          status: { type: 'string' },
          analysedAt: { type: 'string' },
          revision: { type: 'string' },
          project: { type: 'object' },
          branch: { type: 'object' },
          pullRequest: { type: 'string' },
          qualityGate: {
            type: 'object',
            properties: {
              status: { type: 'string' },
              conditions: { type: ['array', 'null'], items: { type: 'object' } },
            },
          },
        },
      },
    },
    required: ['sonar_results'],
    // Compliant when the analysis passed its quality gate.
    compliant: (b) => (b.sonar_results as { qualityGate?: { status?: string } }).qualityGate?.status === 'OK',
  },
  system: {
    properties: {
      // The kind of system attestation: a decision about a control is the one there is.
      type_name: { type: 'string', enum: ['decision'] },
      control: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        description: 'The identifier of the control decided on (e.g. RCTL-043)',
      },
      attestation_data: {
        type: 'object',
        additionalProperties: false,
        required: ['is_compliant'],
        properties: { is_compliant: { type: 'boolean' } },
      },
    },
    required: ['type_name', 'control', 'attestation_data'],
    compliant: (b) => (b.attestation_data as { is_compliant: boolean }).is_compliant,
  },
  override: {
    properties: {
      reason: { type: 'string', minLength: 1, maxLength: 5000 },
      new_compliance_status: { type: 'boolean' },
      original_attestation_type: {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        description:
          'The type of the attestation overridden (generic, junit, snyk, pull_request, jira, custom, …)',
      },
    },
    required: ['reason', 'new_compliance_status', 'original_attestation_type'],
    // The overriding status itself (how it replaces the overridden one: attestation-slots.ts).
    compliant: (b) => b.new_compliance_status as boolean,
  },
};

type Body = Record<string, unknown>;

type SnykResults = {
  vulnerabilities?: unknown[];
  results?: { high_count: number; medium_count: number; low_count: number }[];
};

/** Vulnerabilities found: listed, or counted per scan. */
function snykFindings(results: SnykResults): number {
  const counted = (results.results ?? []).reduce(
    (n, r) => n + r.high_count + r.medium_count + r.low_count,
    0,
  );
  return (results.vulnerabilities?.length ?? 0) + counted;
}
/** An attestation body of each type, exactly as it is validated (the OpenAPI document declares these). */
export const ATTESTATION_BODY_SCHEMAS = Object.fromEntries(
  Object.entries(TYPES).map(([type, t]): [string, Record<string, unknown>] => [
    type,
    {
      type: 'object',
      additionalProperties: false,
      required: ['attestation_name', ...t.required],
      properties: { ...common, ...t.properties },
      // One way to name the artifacts it is about, or none (then it is about the trail).
      dependentSchemas: { artifact_fingerprint: { properties: { target_artifacts: false } } },
    },
  ]),
) as Record<AttestationType, Record<string, unknown>>;

// verbose: a message can name the value refused.
const ajv = new Ajv({ allErrors: true, verbose: true });
const validators = Object.fromEntries(
  Object.entries(ATTESTATION_BODY_SCHEMAS).map(([type, schema]) => [type, ajv.compile<Body>(schema)]),
) as Record<AttestationType, ReturnType<typeof ajv.compile<Body>>>;

export interface ParsedAttestation {
  name: string;
  compliant: boolean;
  artifactFingerprint: string | null;
  targets: string[];
  description: string;
  originUrl: string | null;
  userData: Record<string, unknown>;
  evidence: Record<string, unknown>;
  context: AttestationContext;
}

/** The attestation, or field path → message for every problem. */
export function parseAttestation(
  type: AttestationType,
  body: unknown,
): ParsedAttestation | { errors: Record<string, string> } {
  const validate = validators[type];
  if (!validate(body)) {
    const message = (e: { keyword: string; instancePath: string; data?: unknown }) =>
      e.keyword === 'false schema'
        ? 'give artifact_fingerprint or target_artifacts, not both'
        : e.keyword === 'pattern' && e.instancePath.endsWith('/fingerprint')
          ? `'${String(e.data)}' is not a sha256 fingerprint (64 lowercase hex digits)`
          : undefined;
    return { errors: schemaFieldErrors(validate.errors, { message }) };
  }
  const valid = body as Body;
  const {
    attestation_name,
    description,
    artifact_fingerprint,
    target_artifacts,
    origin_url,
    user_data,
    git_commit_info,
    repo_info,
    external_urls,
    annotations,
    ...evidence
  } = valid;
  const context = definedOnly({
    git_commit_info,
    repo_info,
    external_urls,
    annotations,
  }) as AttestationContext;
  return {
    name: attestation_name as string,
    compliant: TYPES[type].compliant(valid),
    artifactFingerprint: (artifact_fingerprint as string | undefined) ?? null,
    targets: (target_artifacts as string[] | undefined) ?? [],
    description: (description as string | undefined) ?? '',
    originUrl: (origin_url as string | undefined) ?? null,
    userData: (user_data as Record<string, unknown> | undefined) ?? {},
    evidence,
    context,
  };
}

/** The entries whose value was given. */
export function definedOnly<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}
