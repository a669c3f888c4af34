import type { TrailView } from '#des/trails';

type ArtifactView = TrailView['artifacts'][number];

/** One line of an artifact's history as `kosli get artifact` prints it. */
export interface ArtifactHistoryEntry {
  event: string;
  /** UNIX seconds. */
  timestamp: number;
}

/**
 * An artifact's history from its trail: reported, each attestation on it,
 * each environment it started running in and exited, oldest first.
 */
export function artifactHistory(artifact: ArtifactView): ArtifactHistoryEntry[] {
  const name = artifact.template_reference_name ?? artifact.filename;
  const entries: ArtifactHistoryEntry[] = [
    { event: `${name} reported`, timestamp: artifact.reported_at },
    ...Object.values(artifact.attestations).map((a) => ({
      event: `${a.name} attestation reported (${a.compliant ? 'compliant' : 'non-compliant'})`,
      timestamp: a.reported_at,
    })),
    ...[...artifact.running, ...artifact.exited].map((r) => ({
      event: `started running in ${r.environment}#${r.snapshot_index}`,
      timestamp: r.since,
    })),
    ...artifact.exited.map((r) => ({
      event: `exited from ${r.environment}#${r.snapshot_index}`,
      timestamp: r.until,
    })),
  ];
  return entries.sort((a, b) => a.timestamp - b.timestamp);
}
