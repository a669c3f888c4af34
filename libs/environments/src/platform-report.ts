import type { ErrorObject } from 'ajv';
import { schemaFieldErrors } from '#des/platform';
import type { K8sPod } from './k8s-report';
import { slicedReportValidator } from './report-validation';

/**
 * The environment types reported through `PUT /environments/{org}/{env}/report/{type}`
 * besides K8S (which has its own route): what the Kosli CLI's `snapshot server|path|paths`
 * (`server`), `snapshot s3`, `snapshot lambda`, `snapshot ecs`, `snapshot docker`,
 * `snapshot azure-apps` and `snapshot cloud-run` send.
 */
export const PLATFORM_REPORT_TYPES = [
  'server',
  'S3',
  'lambda',
  'ECS',
  'docker',
  'azure-apps',
  'cloud-run',
] as const;
export type PlatformReportType = (typeof PLATFORM_REPORT_TYPES)[number];

/** Running units one report may list (servers, buckets, functions, tasks, apps, revisions: fewer than a cluster's pods). */
export const MAX_REPORT_UNITS = 5_000;

/** A sha256 digest (optionally `sha256:` and behind `<repo>@`). ECS sends "" for an image it could not resolve. */
const DIGEST = '^(?:[^\\s]*@)?(?:sha256:)?[0-9a-f]{64}$';
const digests = (allowUnknown: boolean) => ({
  type: 'object',
  minProperties: 1,
  additionalProperties: allowUnknown
    ? { type: 'string', anyOf: [{ pattern: DIGEST }, { maxLength: 0 }] }
    : { type: 'string', pattern: DIGEST },
});
const name = { type: 'string', maxLength: 1024 };

/** What one running unit of each type carries beside `digests` and `creationTimestamp`. */
const UNIT_FIELDS: Record<PlatformReportType, Record<string, unknown>> = {
  server: {},
  S3: {},
  lambda: {},
  docker: {},
  ECS: { taskArn: name, cluster_name: name, service_name: name },
  'azure-apps': { app_name: name, app_kind: name, digests_source: name },
  'cloud-run': {
    kind: { type: 'string', enum: ['service', 'job'] },
    serviceName: name,
    revisionName: name,
    jobName: name,
  },
};
const REQUIRED: Record<PlatformReportType, string[]> = {
  server: [],
  S3: [],
  lambda: [],
  docker: [],
  ECS: ['taskArn'],
  'azure-apps': ['app_name'],
  'cloud-run': ['kind'],
};

/** The report body of a type: the validator's schema, and the OpenAPI document's. */
export function platformReportSchema(type: PlatformReportType) {
  return {
    type: 'object',
    required: ['artifacts'],
    additionalProperties: false,
    properties: {
      // cloud-run repeats its type in the body.
      ...(type === 'cloud-run' ? { type: { type: 'string', const: 'cloud-run' } } : {}),
      artifacts: {
        type: 'array',
        maxItems: MAX_REPORT_UNITS,
        items: {
          type: 'object',
          required: ['digests', 'creationTimestamp', ...REQUIRED[type]],
          additionalProperties: false,
          properties: {
            digests: digests(type === 'ECS'),
            creationTimestamp: { type: 'number' },
            ...UNIT_FIELDS[type],
          },
        },
      },
    },
  } as const;
}

interface Unit {
  digests: Record<string, string>;
  creationTimestamp: number;
  taskArn?: string;
  cluster_name?: string;
  service_name?: string;
  app_name?: string;
  app_kind?: string;
  kind?: string;
  serviceName?: string;
  revisionName?: string;
  jobName?: string;
}

const validators = new Map(
  PLATFORM_REPORT_TYPES.map((t) => [
    t,
    slicedReportValidator<{ artifacts: Unit[] }>(platformReportSchema(t)),
  ]),
);

/**
 * The report's running units as pods (what the K8S report's model is made of:
 * a name, a namespace, a start and digests), or field path → message for
 * every problem. A unit is named by what identifies it in its platform (an
 * ECS task, an Azure app, a Cloud Run revision or job; the artifact's own
 * name for server, S3, lambda and docker); an image whose digest ECS could not
 * resolve ("") is left out.
 */
export async function parsePlatformReport(
  type: PlatformReportType,
  body: unknown,
): Promise<{ pods: K8sPod[] } | { errors: Record<string, string> }> {
  const checked = await validators.get(type)!(body);
  if ('errors' in checked) return { errors: schemaFieldErrors(checked.errors, { message: reportMessage }) };
  const pods = checked.valid.artifacts.flatMap((unit): K8sPod[] => {
    const known = Object.fromEntries(Object.entries(unit.digests).filter(([, d]) => d !== ''));
    if (Object.keys(known).length === 0) return [];
    const [podName, namespace] = unitName(type, unit, Object.keys(known));
    return [{ podName, namespace, creationTimestamp: unit.creationTimestamp, digests: known }];
  });
  return { pods };
}

function unitName(type: PlatformReportType, unit: Unit, names: string[]): [string, string] {
  switch (type) {
    case 'ECS':
      return [unit.taskArn!, unit.cluster_name ?? ''];
    case 'azure-apps':
      return [unit.app_name!, unit.app_kind ?? ''];
    case 'cloud-run':
      return unit.kind === 'job'
        ? [unit.jobName ?? '', 'job']
        : [unit.revisionName ?? unit.serviceName ?? '', unit.serviceName ?? 'service'];
    default:
      return [names.sort().join(','), ''];
  }
}

function reportMessage(e: ErrorObject): string | undefined {
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'pattern':
    case 'anyOf':
      return 'must be a sha256 digest (64 hex digits, optionally after sha256:)';
    case 'minProperties':
      return 'must name at least one artifact';
    default:
      return undefined;
  }
}
