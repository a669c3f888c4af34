import { derivedId, Reaction, ReactionOutput } from '../../../../libs/projections/src/reaction';
import type { Doc } from '../../../../libs/read-store/src';
import type { SnapshotEntry } from '../environments/environment.decider';
import { ARTIFACTS } from './trails.projection';
import { GitCommitInfo, RepoInfo, trailStream } from './trail.events';

interface ArtifactDoc extends Doc {
  flow: string;
  trail: string;
  git_commit: string | null;
  git_commit_info: GitCommitInfo | null;
  repo_info: RepoInfo | null;
}

/**
 * Provenance: when a snapshot starts or exits a fingerprint that a trail
 * reported, the trail's own stream records it, so a trail tells its whole
 * story, and deployments learn their commit, flow and trail.
 */
export const provenanceReaction: Reaction = {
  name: 'provenance',
  async react(event, reads) {
    if (event.type !== 'snapshot_created') return [];
    const org = event.metadata.org as string;
    const {
      name: environment,
      index,
      entries,
    } = event.data as { name: string; index: number; entries: SnapshotEntry[] };
    const outputs: ReactionOutput[] = [];
    for (const [i, entry] of entries.entries()) {
      const artifacts = await reads.find<ArtifactDoc>(ARTIFACTS, { org, fingerprint: entry.fingerprint });
      for (const artifact of artifacts) {
        outputs.push({
          stream: trailStream(org, artifact.flow, artifact.trail),
          events: [
            {
              id: derivedId(event.id, `${i}:${artifact.flow}/${artifact.trail}`),
              type: entry.event_type === 'started' ? 'artifact_started_running' : 'artifact_stopped_running',
              data: {
                fingerprint: entry.fingerprint,
                environment,
                snapshot_index: index,
                artifact_name: entry.artifact_name,
                flow: artifact.flow,
                trail: artifact.trail,
                commit:
                  artifact.git_commit_info ?? (artifact.git_commit ? { sha1: artifact.git_commit } : null),
                repo: artifact.repo_info,
              },
              metadata: {
                org,
                actor: { kind: 'system', name: 'provenance' },
                causation_id: event.id,
                correlation_id: event.metadata.correlation_id,
              },
            },
          ],
        });
      }
    }
    return outputs;
  },
};
