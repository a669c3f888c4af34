import type { Reaction } from '#des/projections';
import { reactionMetadata } from '#des/projections';
import { ChangeTrail, type RunningMove } from '#des/trails';
import type { SnapshotEntry } from './environment.decider';

/**
 * Provenance: when a snapshot starts or exits a fingerprint that trails
 * reported, each trail's own stream records it, so a trail tells its whole
 * story. A `changed` entry is an artifact still running: it moves nothing.
 * The snapshot carries its provenance (the trails known when it was made),
 * so the reaction needs no read model. Each trail's moves go through the
 * trails feature's command and decider, which records none twice when a
 * snapshot is reacted to again after a crash.
 */
export const provenanceReaction: Reaction = {
  name: 'provenance',
  needsReadModels: false,
  async react(event, _reads, effects) {
    if (event.type !== 'snapshot_created') return [];
    const org = event.metadata.org as string;
    const {
      name: environment,
      index,
      entries,
    } = event.data as { name: string; index: number; entries: SnapshotEntry[] };
    const byTrail = new Map<string, { flow: string; trail: string; moves: RunningMove[] }>();
    for (const entry of entries) {
      if (entry.event_type === 'changed') continue;
      for (const p of entry.provenance ?? []) {
        const key = `${p.flow}/${p.trail}`;
        const moves = byTrail.get(key) ?? { flow: p.flow, trail: p.trail, moves: [] };
        byTrail.set(key, moves);
        moves.moves.push({
          move: entry.event_type === 'started' ? 'started' : 'stopped',
          running: {
            fingerprint: entry.fingerprint,
            environment,
            snapshot_index: index,
            artifact_name: entry.artifact_name,
            flow: p.flow,
            trail: p.trail,
            commit: p.commit ?? null,
            repo: p.repo ?? null,
          },
        });
      }
    }
    const metadata = reactionMetadata(event, 'provenance');
    for (const { flow, trail, moves } of byTrail.values())
      await effects.execute(new ChangeTrail(org, flow, trail, { kind: 'record_running', moves }, metadata));
    return [];
  },
};
