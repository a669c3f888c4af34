import type { StoredEvent } from '#des/event-store';
import { type ProjectionReads, type Reaction, reactionMetadata } from '#des/projections';
import { artifactReports, trailNamed } from '#des/trails';
import { ChangeEnvironment } from './environment.commands';
import type { ReassessCause } from './environment.decider';
import {
  environmentNamed,
  environmentsRunning,
  environmentsWithPolicy,
  snapshotNamed,
} from './environments.queries';
import type { RunningArtifact } from './k8s-report';
import { assessRunning } from './running-assessment';

/** Events that can change what an environment's running artifacts are judged by. */
const TRIGGERS: Record<string, Set<string>> = {
  environment: new Set(['snapshot_created', 'policies_attached', 'policies_detached']),
  policy: new Set(['policy_version_added']),
  trail: new Set(['trail_updated', 'artifact_reported', 'attestation_reported']),
  flow: new Set(['flow_updated', 'tags_changed']),
  allowlist: new Set(['artifact_allowlisted']),
};

/** The stream an event that may change a judgement came from; undefined for any other event. */
function triggeringStream(event: StoredEvent): string | undefined {
  const aggregate = event.stream.slice(0, event.stream.indexOf('-'));
  return TRIGGERS[aggregate]?.has(event.type) ? event.stream : undefined;
}

/** The environments (by name) whose running set `event` may judge differently, and why. */
async function affected(
  event: StoredEvent,
  org: string,
  reads: ProjectionReads,
): Promise<{ environments: string[]; cause: ReassessCause }> {
  const aggregate = event.stream.slice(0, event.stream.indexOf('-'));
  const id = event.stream.slice(event.stream.indexOf('/') + 1);
  const none = { environments: [], cause: { event_type: event.type, subject: '' } };
  if (triggeringStream(event) === undefined) return none;
  const cause = { event_type: event.type, subject: `${aggregate} ${id}` };
  const running = (fingerprints: string[]) => environmentsRunning(reads, org, fingerprints);
  switch (aggregate) {
    case 'allowlist':
      // The allow-list is the environment's own (its stream is named after it).
      return { environments: [id], cause };
    case 'environment':
      // A new snapshot is judged by its report; assessing it again here catches what changed meanwhile.
      return { environments: [id], cause };
    case 'policy':
      return {
        environments: await environmentsWithPolicy(reads, org, id),
        cause,
      };
    case 'trail': {
      const [flow, trail] = [id.slice(0, id.indexOf('/')), id.slice(id.indexOf('/') + 1)];
      const view = await trailNamed(reads, org, flow, trail);
      return { environments: await running((view?.artifacts ?? []).map((a) => a.fingerprint)), cause };
    }
    case 'flow': {
      const reports = await artifactReports(reads, org, { flow: id });
      return {
        environments: await running([...new Set(reports.map((a) => a.fingerprint))]),
        cause,
      };
    }
    default:
      return none;
  }
}

/**
 * Environment compliance, kept current between reports: when a policy gains
 * a version, policies are attached or detached, a running artifact's trail
 * gains an attestation or an artifact, or its flow's template or tags change,
 * each affected environment's running set is assessed again and the
 * environment's decider records `compliance_changed` if any artifact's
 * compliance or provenance moved. The command is decided against the
 * environment's stream, so a replay after a crash records nothing twice.
 * A batch's events from one stream are assessed once, at the last of them:
 * the reads are the batch's end either way (a trail of 500 attestations in a
 * batch is one assessment, not 500 equal ones).
 */
export const complianceReaction: Reaction = {
  name: 'compliance',
  coalesceBy: triggeringStream,
  async react(event, reads, effects) {
    const org = event.metadata.org as string;
    const { environments, cause } = await affected(event, org, reads);
    const metadata = reactionMetadata(event, 'compliance');
    for (const name of [...new Set(environments)].sort()) {
      const environment = await environmentNamed(reads, org, name);
      const index = (environment?.latest_snapshot as number | undefined) ?? 0;
      if (!environment || index === 0) continue;
      const snapshot = await snapshotNamed(reads, org, name, index);
      if (!snapshot) continue;
      const artifacts = await assessRunning(
        reads,
        org,
        (environment.policies as string[]) ?? [],
        snapshot.artifacts as RunningArtifact[],
        name,
      );
      await effects.execute(
        new ChangeEnvironment(
          org,
          { kind: 'reassess', name, snapshotIndex: index, artifacts, cause },
          metadata,
        ),
      );
    }
    return [];
  },
};
