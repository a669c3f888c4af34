import { microsToSeconds } from '#des/event-store';
import type { GitCommitInfo, TrailEvent } from './trail.events';

/** One event of a trail as the Kosli CLI renders it (`kosli get trail`'s events). */
export interface KosliTrailEvent {
  type: string;
  /** UNIX seconds. */
  timestamp: number;
  git_commit_info?: GitCommitInfo | null;
  is_compliant?: boolean;
  attestation_type?: string;
  attestation_id?: string;
  /** The attestation's name, or the artifact's name in the template. */
  template_reference_name?: string | null;
  /** The name in the template of the artifact an attestation is for. */
  target_artifact?: string;
  artifact_name?: string;
  fingerprint?: string;
  environment_name?: string;
  snapshot_index?: number;
}

/**
 * A trail's events in Kosli's names, oldest first. Pure: the events of the
 * trail's stream, with their commit instants (microseconds).
 */
export function kosliTrailEvents(events: { event: TrailEvent; recordedAt: number }[]): KosliTrailEvent[] {
  // An artifact attestation names its artifact by the artifact's name in the template.
  const templateNames = new Map<string, string | null>();
  return events.map(({ event, recordedAt }) => {
    const timestamp = microsToSeconds(recordedAt);
    switch (event.type) {
      case 'trail_reported':
      case 'trail_updated':
        return { type: event.type, timestamp, git_commit_info: event.data.git_commit_info };
      case 'artifact_reported':
        templateNames.set(event.data.fingerprint, event.data.template_reference_name);
        return {
          type: 'artifact_creation_reported',
          timestamp,
          artifact_name: event.data.filename,
          fingerprint: event.data.fingerprint,
          template_reference_name: event.data.template_reference_name,
          git_commit_info: event.data.git_commit_info,
        };
      case 'attestation_reported': {
        const { type, name, id, compliant, artifact_fingerprint, git_commit_info } = event.data;
        const common = {
          timestamp,
          attestation_type: type,
          attestation_id: id,
          template_reference_name: name,
          is_compliant: compliant,
          ...(git_commit_info ? { git_commit_info } : {}),
        };
        if (!artifact_fingerprint) return { type: 'trail_attestation_reported', ...common };
        return {
          type: 'artifact_attestation_reported',
          ...common,
          target_artifact: templateNames.get(artifact_fingerprint) ?? artifact_fingerprint,
          fingerprint: artifact_fingerprint,
        };
      }
      case 'artifact_started_running':
      case 'artifact_stopped_running':
        return {
          type: event.type,
          timestamp,
          template_reference_name: templateNames.get(event.data.fingerprint) ?? event.data.artifact_name,
          fingerprint: event.data.fingerprint,
          environment_name: event.data.environment,
          snapshot_index: event.data.snapshot_index,
        };
      default:
        return { type: (event as { type: string }).type, timestamp };
    }
  });
}
