import type { ErrorObject } from 'ajv';
import { schemaFieldErrors } from '#des/platform';
import type { Commit, RepoInfo } from '#des/trails';
import { slicedReportValidator } from './report-validation';

/** One pod of a Kubernetes report, as the spec defines it. */
export interface K8sPod {
  creationTimestamp: number;
  /** Image reference → digest (`sha256:<64 hex>`, optionally behind `<repo>@`). */
  digests: Record<string, string>;
  namespace: string;
  podName: string;
}

/**
 * A trail that reported a running fingerprint, with its commit and repository
 * as known when the snapshot was made: a snapshot carries its own provenance,
 * so deployments and audit rows follow from the environment's stream alone.
 */
export interface Provenance {
  flow: string;
  trail: string;
  commit?: Commit | null;
  repo?: RepoInfo | null;
}

/** What runs: pods grouped by the fingerprint of their image digest. */
export interface RunningArtifact {
  fingerprint: string;
  artifact_name: string;
  instances: number;
  pods: { pod: string; namespace: string; created_at: number }[];
  /** The trails that reported this fingerprint (its provenance), when any did. */
  provenance?: Provenance[];
  /**
   * Whether it is compliant: by the environment's policies when some are
   * attached, else by its trails; null without provenance (not compliant).
   */
  compliant?: boolean | null;
  /** The attached policies' verdict and its reasons (absent when no policy is attached). */
  policy_decision?: { compliant: boolean; reasons: string[] };
}

const DIGEST = '^(?:[^\\s]*@)?(?:sha256:)?[0-9a-f]{64}$';

/** Pods one report may list. */
export const MAX_REPORT_PODS = 20_000;

/** A K8S report's body: the validator's schema, and the OpenAPI document's. */
export const K8S_REPORT_SCHEMA = {
  type: 'object',
  required: ['artifacts'],
  additionalProperties: false,
  properties: {
    artifacts: {
      type: 'array',
      maxItems: MAX_REPORT_PODS,
      items: {
        type: 'object',
        required: ['creationTimestamp', 'digests', 'namespace', 'podName'],
        additionalProperties: false,
        properties: {
          creationTimestamp: { type: 'number' },
          digests: {
            type: 'object',
            minProperties: 1,
            additionalProperties: { type: 'string', pattern: DIGEST },
          },
          namespace: { type: 'string', minLength: 1, maxLength: 253 },
          podName: { type: 'string', minLength: 1, maxLength: 253 },
          // The pod's owner references, as the Kosli CLI sends them: accepted, not kept.
          owners: {
            type: 'array',
            maxItems: 100,
            items: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                name: { type: 'string' },
                uid: { type: 'string' },
                controller: { type: 'boolean' },
                blockOwnerDeletion: { type: 'boolean' },
              },
            },
          },
        },
      },
    },
  },
} as const;

const validate = slicedReportValidator<{ artifacts: (K8sPod & { owners?: unknown[] })[] }>(K8S_REPORT_SCHEMA);

/** The report's pods, or field path → message for every problem (`artifacts[3].podName`). */
export async function parseK8sReport(
  body: unknown,
): Promise<{ pods: K8sPod[] } | { errors: Record<string, string> }> {
  const checked = await validate(body);
  if ('errors' in checked) return { errors: schemaFieldErrors(checked.errors, { message: reportMessage }) };
  // Owners are accepted, not kept; a pod without them is taken as parsed (no copy of 500 pods).
  return {
    pods: checked.valid.artifacts.map((pod) => (pod.owners === undefined ? pod : withoutOwners(pod))),
  };
}

const withoutOwners = ({ owners: _owners, ...pod }: K8sPod & { owners?: unknown[] }): K8sPod => pod;

function reportMessage(e: ErrorObject): string | undefined {
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'pattern':
      return 'must be a sha256 digest (sha256:<64 hex digits>)';
    case 'minProperties':
      return 'must name at least one image';
    default:
      return undefined;
  }
}

export const fingerprintOf = (digest: string) => digest.slice(-64);

/** Groups pods by fingerprint: one instance per pod running that image. Sorted by fingerprint. */
export function runningArtifacts(pods: K8sPod[]): RunningArtifact[] {
  const byFingerprint = new Map<string, RunningArtifact>();
  for (const pod of pods) {
    for (const [image, digest] of Object.entries(pod.digests)) {
      const fingerprint = fingerprintOf(digest);
      let artifact = byFingerprint.get(fingerprint);
      if (!artifact) {
        artifact = { fingerprint, artifact_name: image, instances: 0, pods: [] };
        byFingerprint.set(fingerprint, artifact);
      } else if (image < artifact.artifact_name) {
        artifact.artifact_name = image;
      }
      artifact.instances++;
      artifact.pods.push({ pod: pod.podName, namespace: pod.namespace, created_at: pod.creationTimestamp });
    }
  }
  // Fingerprints are lower-case hex: code-point order is their order, without localeCompare's cost.
  return [...byFingerprint.values()].sort((a, b) =>
    a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0,
  );
}

/** The repository part of an image reference (no tag, no digest): what "same artifact name" means. */
export function imageName(reference: string): string {
  const withoutDigest = reference.split('@')[0];
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}
