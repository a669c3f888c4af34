import type { Decider } from '#des/kernel';
import { DomainError } from '#des/kernel';
import type { ArtifactData, AttestationData, RunningData, TrailData, TrailEvent } from './trail.events';

/** An environment's snapshot started running one of the trail's artifacts, or no longer runs it. */
export interface RunningMove {
  move: 'started' | 'stopped';
  running: RunningData;
}

export type TrailCommand =
  | { kind: 'put_trail'; trail: TrailData }
  | {
      kind: 'report_artifact';
      artifact: ArtifactData;
      /** The trail to begin when it has not begun (the Kosli CLI attests artifacts to trails it has not begun). */
      begins: TrailData;
    }
  | {
      kind: 'report_attestation';
      attestation: AttestationData;
      /** Artifacts of the trail to attest, by template reference name or fingerprint (instead of one fingerprint). */
      targets?: string[];
      /** The trail's organization, named when an artifact is not found. */
      org?: string;
    }
  /** From the environments' provenance reaction: what each new snapshot started and stopped running. */
  | { kind: 'record_running'; moves: RunningMove[] };

export interface TrailState {
  exists: boolean;
  trail: TrailData | null;
  artifacts: Record<string, ArtifactData>;
  /** Moves recorded (`runningKey`), so a replayed snapshot records none twice. */
  running: RecordedMoves;
}

/** The positions of a trail's recorded moves, shared by the states folded one from another. */
interface MoveLog {
  readonly at: Map<string, number>;
  length: number;
}

/**
 * A set of recorded moves that behaves as immutable: each state sees the
 * keys of its log up to its own size. Adding one extends the log in place
 * when this state is its newest (the fold, one event after another: O(1));
 * from an older state (a branch) it copies its part first. A trail's moves
 * grow with every snapshot that starts or stops its artifacts, so a copy of
 * them per event made a report's moves cost O(moves × the trail's history).
 */
export class RecordedMoves {
  static readonly none = new RecordedMoves({ at: new Map(), length: 0 }, 0);

  private constructor(
    private readonly log: MoveLog,
    private readonly size: number,
  ) {}

  has(key: string): boolean {
    const position = this.log.at.get(key);
    return position !== undefined && position < this.size;
  }

  with(key: string): RecordedMoves {
    if (this.has(key)) return this;
    let log = this.log;
    // `none` is every stream's start: never extended in place.
    if (this === RecordedMoves.none || log.length !== this.size) {
      log = { at: new Map(), length: this.size };
      for (const [k, position] of this.log.at) if (position < this.size) log.at.set(k, position);
    }
    log.at.set(key, log.length++);
    return new RecordedMoves(log, log.length);
  }
}

const runningKey = (move: RunningMove['move'], r: RunningData) =>
  `${move}:${r.environment}#${r.snapshot_index}#${r.fingerprint}`;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A trail with its artifacts and attestations: append-only evidence. */
export const trailDecider: Decider<TrailCommand, TrailState, TrailEvent> = {
  initialState: { exists: false, trail: null, artifacts: {}, running: RecordedMoves.none },

  evolve(state, event) {
    switch (event.type) {
      case 'trail_reported':
      case 'trail_updated':
        return { ...state, exists: true, trail: event.data };
      case 'artifact_reported':
        return { ...state, artifacts: { ...state.artifacts, [event.data.fingerprint]: event.data } };
      case 'attestation_reported':
        return state;
      case 'artifact_started_running':
        return { ...state, running: state.running.with(runningKey('started', event.data)) };
      case 'artifact_stopped_running':
        return { ...state, running: state.running.with(runningKey('stopped', event.data)) };
    }
  },

  decide(command, state) {
    switch (command.kind) {
      case 'put_trail':
        if (!state.exists) return [{ type: 'trail_reported', data: command.trail }];
        return same(state.trail, command.trail) ? [] : [{ type: 'trail_updated', data: command.trail }];
      case 'report_artifact': {
        const reported: TrailEvent = { type: 'artifact_reported', data: command.artifact };
        if (!state.exists) return [{ type: 'trail_reported', data: command.begins }, reported];
        if (same(state.artifacts[command.artifact.fingerprint], command.artifact)) return [];
        return [reported];
      }
      case 'record_running': {
        // A trail the snapshot's provenance named but that is not (yet) in this stream has nothing to record.
        if (!state.exists) return [];
        // Each move once: not recorded before, nor twice in this command.
        const seen = new Set<string>();
        return command.moves
          .filter((m) => {
            const key = runningKey(m.move, m.running);
            if (state.running.has(key) || seen.has(key)) return false;
            seen.add(key);
            return true;
          })
          .map((m) => ({
            type:
              m.move === 'started'
                ? ('artifact_started_running' as const)
                : ('artifact_stopped_running' as const),
            data: m.running,
          }));
      }
      case 'report_attestation': {
        if (!state.exists) throw new DomainError('not_found', 'Trail not found');
        const fingerprint = command.attestation.artifact_fingerprint;
        if (fingerprint && !state.artifacts[fingerprint]) {
          // Kosli's words, which its CLI prints.
          const { name, flow } = state.trail ?? { name: '', flow: '' };
          throw new DomainError(
            'not_found',
            `Artifact with fingerprint ${fingerprint} does not exist in trail "${name}" of flow "${flow}"` +
              (command.org ? ` belonging to organization "${command.org}"` : ''),
          );
        }
        if (!command.targets?.length) return [{ type: 'attestation_reported', data: command.attestation }];
        const artifacts = Object.values(state.artifacts);
        return command.targets.flatMap((target, i) => {
          const matches = artifacts.filter(
            (a) => a.template_reference_name === target || a.fingerprint === target,
          );
          if (matches.length === 0) {
            throw new DomainError('not_found', 'Artifact not found in trail', {
              [`target_artifacts[${i}]`]: `no artifact '${target}' was reported in this trail`,
            });
          }
          return matches.map((a) => ({
            type: 'attestation_reported' as const,
            data: {
              ...command.attestation,
              id: `${command.attestation.id}/${a.fingerprint}`,
              artifact_fingerprint: a.fingerprint,
            },
          }));
        });
      }
    }
  },
};
