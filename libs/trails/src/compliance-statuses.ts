import type { FlowTemplate } from '#des/flows';
import type { AttestationView, ArtifactView, ComplianceStatus, TrailView } from './trail.view';

/** One attestation the template expects, or one made that it does not (`unexpected`). */
export interface AttestationStatus {
  attestation_name: string;
  attestation_type: string;
  /** The attestation made (`GET /attestations/{org}?attestation_id=`); null while missing. */
  attestation_id: string | null;
  status: 'COMPLETE' | 'MISSING';
  /** null while missing. */
  is_compliant: boolean | null;
  unexpected: boolean;
}

/** One artifact the template expects (by its name there), or one reported that it does not name. */
export interface ArtifactStatus {
  /** null while the template's artifact is not reported. */
  fingerprint: string | null;
  artifact_name: string | null;
  status: ComplianceStatus | 'MISSING';
  unexpected: boolean;
  attestations_statuses: AttestationStatus[];
}

export interface ComplianceStatuses {
  attestations_statuses: AttestationStatus[];
  /** By the artifact's name in the template (its fingerprint when it has none). */
  artifacts_statuses: Record<string, ArtifactStatus>;
}

type Expected = { name: string; type: string };

/** Each expected attestation, made or missing, then each made that none expected, by name. */
function attestationStatuses(
  expected: Expected[],
  made: Record<string, AttestationView>,
): AttestationStatus[] {
  const wanted = new Set(expected.map((e) => e.name));
  const madeStatus = (a: AttestationView, unexpected: boolean): AttestationStatus => ({
    attestation_name: a.name,
    attestation_type: a.type,
    attestation_id: a.id,
    status: 'COMPLETE',
    is_compliant: a.compliant,
    unexpected,
  });
  return [
    ...expected.map((e) =>
      made[e.name]
        ? madeStatus(made[e.name], false)
        : {
            attestation_name: e.name,
            attestation_type: e.type,
            attestation_id: null,
            status: 'MISSING' as const,
            is_compliant: null,
            unexpected: false,
          },
    ),
    ...Object.values(made)
      .filter((a) => !wanted.has(a.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((a) => madeStatus(a, true)),
  ];
}

function artifactStatus(
  artifact: ArtifactView | undefined,
  expected: Expected[],
  unexpected: boolean,
): ArtifactStatus {
  const statuses = attestationStatuses(expected, artifact?.attestations ?? {});
  const status: ArtifactStatus['status'] = !artifact
    ? 'MISSING'
    : statuses.some((s) => s.is_compliant === false)
      ? 'NON-COMPLIANT'
      : statuses.some((s) => s.status === 'MISSING')
        ? 'INCOMPLETE'
        : 'COMPLIANT';
  return {
    fingerprint: artifact?.fingerprint ?? null,
    artifact_name: artifact?.filename ?? null,
    status,
    unexpected,
    attestations_statuses: statuses,
  };
}

/**
 * The trail's attestations and artifacts against the flow's template, one
 * status each, in the shape the Kosli CLI reads (`get trail`, `evaluate
 * trail`: a policy finds an attestation by name under `attestations_statuses`
 * and an artifact's under `artifacts_statuses.<name>`). What the template does
 * not name is listed too, marked `unexpected`.
 */
export function complianceStatuses(view: TrailView, template: FlowTemplate | null): ComplianceStatuses {
  const artifacts_statuses: Record<string, ArtifactStatus> = {};
  const named = new Set<string>();
  for (const expected of template?.artifacts ?? []) {
    named.add(expected.name);
    const artifact = view.artifacts.find((a) => a.template_reference_name === expected.name);
    artifacts_statuses[expected.name] = artifactStatus(artifact, expected.attestations ?? [], false);
  }
  for (const artifact of view.artifacts) {
    const name = artifact.template_reference_name ?? artifact.fingerprint;
    if (named.has(name) || artifacts_statuses[name]) continue;
    artifacts_statuses[name] = artifactStatus(artifact, [], true);
  }
  return {
    attestations_statuses: attestationStatuses(template?.trail?.attestations ?? [], view.attestations),
    artifacts_statuses,
  };
}
