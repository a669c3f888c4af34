import { derivedId, Reaction, reactionMetadata, ReactionOutput } from '#des/projections';
import type { SnapshotEntry } from './environment.decider';
import { RunningData, trailStream } from '#des/trails';

const RUNNING_EVENTS = {
  started: 'artifact_started_running',
  exited: 'artifact_stopped_running',
} as const;

/**
 * Provenance: when a snapshot starts or exits a fingerprint that trails
 * reported, each trail's own stream records it, so a trail tells its whole
 * story. A `changed` entry is an artifact still running: it moves nothing.
 * The snapshot carries its provenance (the trails known when it was made),
 * so the reaction needs no read model.
 */
export const provenanceReaction: Reaction = {
  name: 'provenance',
  needsReadModels: false,
  react(event) {
    if (event.type !== 'snapshot_created') return [];
    const org = event.metadata.org as string;
    const {
      name: environment,
      index,
      entries,
    } = event.data as { name: string; index: number; entries: SnapshotEntry[] };
    const outputs: ReactionOutput[] = [];
    for (const [i, entry] of entries.entries()) {
      if (entry.event_type === 'changed') continue;
      for (const p of entry.provenance ?? []) {
        const data: RunningData = {
          fingerprint: entry.fingerprint,
          environment,
          snapshot_index: index,
          artifact_name: entry.artifact_name,
          flow: p.flow,
          trail: p.trail,
          commit: p.commit ?? null,
          repo: p.repo ?? null,
        };
        outputs.push({
          stream: trailStream(org, p.flow, p.trail),
          events: [
            {
              id: derivedId(event.id, `${i}:${p.flow}/${p.trail}`),
              type: RUNNING_EVENTS[entry.event_type],
              data,
              metadata: reactionMetadata(event, 'provenance'),
            },
          ],
        });
      }
    }
    return outputs;
  },
};
