import { microsToSeconds } from '#des/event-store';
import type { FlowTemplate } from '#des/flows';
import { attestationInSlot, type OverriddenAttestation } from './attestation-slots';
import type { ArtifactData, AttestationData, TrailData, TrailEvent } from './trail.events';
import { complianceStatuses, type ComplianceStatuses } from './compliance-statuses';

export interface AttestationView extends Omit<AttestationData, 'artifact_fingerprint'> {
  artifact_fingerprint?: string;
  reported_at: number;
  /** Overrides only: the attestation whose compliance it replaced (null: none was made). */
  overridden?: OverriddenAttestation | null;
}

export interface RunningPlace {
  environment: string;
  snapshot_index: number;
  since: number;
}

export interface ArtifactView extends ArtifactData {
  reported_at: number;
  attestations: Record<string, AttestationView>;
  /** Where it runs now, and where it ran (environment + snapshot index). */
  running: RunningPlace[];
  exited: (RunningPlace & { until: number })[];
}

/** A trail as `GET /trails/...` shows it (compliance is added against the flow's template). */
export interface TrailView extends TrailData {
  org: string;
  created_at: number;
  last_modified_at: number;
  artifacts: ArtifactView[];
  /** Trail-level attestations by name: the latest of a name wins. */
  attestations: Record<string, AttestationView>;
  /** Entries on the trail's timeline (one per event of its stream): the timeline itself is paged from its own documents. */
  event_count: number;
}

/**
 * Folds one trail event into the view. The projection uses it live, and time
 * travel folds the trail's own stream up to an instant with it: one code path.
 */
export function evolveTrailView(
  view: TrailView | null,
  org: string,
  event: TrailEvent,
  recordedAt: number,
): TrailView | null {
  const at = microsToSeconds(recordedAt);
  if (event.type === 'trail_reported') {
    return {
      ...event.data,
      org,
      created_at: at,
      last_modified_at: at,
      artifacts: [],
      attestations: {},
      event_count: 1,
    };
  }
  if (!view) return view;
  const next = evolveKnownTrail(view, event, at);
  return { ...next, event_count: view.event_count + 1 };
}

function evolveKnownTrail(view: TrailView, event: TrailEvent, at: number): TrailView {
  switch (event.type) {
    case 'trail_updated':
      return { ...view, ...event.data, last_modified_at: at };
    case 'artifact_reported': {
      const existing = view.artifacts.find((a) => a.fingerprint === event.data.fingerprint);
      const artifact: ArtifactView = {
        ...event.data,
        reported_at: at,
        attestations: existing?.attestations ?? {},
        running: existing?.running ?? [],
        exited: existing?.exited ?? [],
      };
      return {
        ...view,
        last_modified_at: at,
        artifacts: existing
          ? view.artifacts.map((a) => (a.fingerprint === artifact.fingerprint ? artifact : a))
          : [...view.artifacts, artifact],
      };
    }
    case 'attestation_reported': {
      const { artifact_fingerprint, ...rest } = event.data;
      const attestation: AttestationView = { ...rest, reported_at: at };
      if (!artifact_fingerprint) {
        return {
          ...view,
          last_modified_at: at,
          attestations: {
            ...view.attestations,
            [event.data.name]: attestationInSlot(view.attestations[event.data.name], attestation),
          },
        };
      }
      return {
        ...view,
        last_modified_at: at,
        artifacts: view.artifacts.map((a) =>
          a.fingerprint === artifact_fingerprint
            ? {
                ...a,
                attestations: {
                  ...a.attestations,
                  [event.data.name]: attestationInSlot(a.attestations[event.data.name], {
                    ...attestation,
                    artifact_fingerprint,
                  }),
                },
              }
            : a,
        ),
      };
    }
    case 'artifact_started_running':
    case 'artifact_stopped_running': {
      const { fingerprint, environment, snapshot_index } = event.data;
      const started = event.type === 'artifact_started_running';
      return {
        ...view,
        artifacts: view.artifacts.map((a) => {
          if (a.fingerprint !== fingerprint) return a;
          const running = (a.running ?? []).filter((r) => r.environment !== environment);
          if (started) return { ...a, running: [...running, { environment, snapshot_index, since: at }] };
          const was = (a.running ?? []).find((r) => r.environment === environment);
          return {
            ...a,
            running,
            exited: [
              ...(a.exited ?? []),
              { environment, snapshot_index, since: was?.since ?? at, until: at },
            ],
          };
        }),
      };
    }
    default:
      return view;
  }
}

export const COMPLIANCE_STATUSES = ['COMPLIANT', 'NON-COMPLIANT', 'INCOMPLETE'] as const;
export type ComplianceStatus = (typeof COMPLIANCE_STATUSES)[number];

export interface Compliance {
  status: ComplianceStatus;
  /** Required attestations not made yet (`artifact/<reference>/<name>` for artifacts). */
  missing: string[];
  /** Attestations made and non-compliant. */
  failing: string[];
}

/**
 * From the flow's template where one exists (every required attestation made
 * and compliant), else from the attestations made. Any failing attestation
 * makes the trail NON-COMPLIANT; a missing one, INCOMPLETE.
 */
export function trailCompliance(view: TrailView, template: FlowTemplate | null): Compliance {
  const failing = [
    ...Object.values(view.attestations)
      .filter((a) => !a.compliant)
      .map((a) => a.name),
    ...view.artifacts.flatMap((artifact) =>
      Object.values(artifact.attestations)
        .filter((a) => !a.compliant)
        .map((a) => `artifact/${artifact.template_reference_name ?? artifact.fingerprint}/${a.name}`),
    ),
  ];
  const missing: string[] = [];
  if (template) {
    for (const required of template.trail?.attestations ?? []) {
      if (!view.attestations[required.name]) missing.push(required.name);
    }
    for (const expected of template.artifacts ?? []) {
      const artifact = view.artifacts.find((a) => a.template_reference_name === expected.name);
      if (!artifact) {
        missing.push(`artifact/${expected.name}`);
        continue;
      }
      for (const required of expected.attestations ?? []) {
        if (!artifact.attestations[required.name]) missing.push(`artifact/${expected.name}/${required.name}`);
      }
    }
  }
  const attested =
    Object.keys(view.attestations).length +
    view.artifacts.reduce((n, a) => n + Object.keys(a.attestations).length, 0);
  const status: ComplianceStatus =
    failing.length > 0
      ? 'NON-COMPLIANT'
      : missing.length > 0 || (!template && attested === 0)
        ? 'INCOMPLETE'
        : 'COMPLIANT';
  return { status, missing, failing };
}

/** A trail as `GET /trails/…` shows it, and as a policy sees it: the view with its compliance. */
export function trailAsShown(
  view: TrailView,
  template: FlowTemplate | null,
): TrailView & { compliance_status: Compliance & ComplianceStatuses; compliance_state: ComplianceStatus } {
  const compliance = trailCompliance(view, template);
  // `compliance_state`: the status alone, as the Kosli CLI reads it.
  return {
    ...view,
    compliance_status: { ...compliance, ...complianceStatuses(view, template) },
    compliance_state: compliance.status,
  };
}
