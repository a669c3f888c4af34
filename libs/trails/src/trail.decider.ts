import type { Decider } from '#des/kernel';
import { DomainError } from '#des/kernel';
import type { ArtifactData, AttestationData, TrailData, TrailEvent } from './trail.events';

export type TrailCommand =
  | { kind: 'put_trail'; trail: TrailData }
  | { kind: 'report_artifact'; artifact: ArtifactData }
  | {
      kind: 'report_attestation';
      attestation: AttestationData;
      /** Artifacts of the trail to attest, by template reference name or fingerprint (instead of one fingerprint). */
      targets?: string[];
    };

export interface TrailState {
  exists: boolean;
  trail: TrailData | null;
  artifacts: Record<string, ArtifactData>;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A trail with its artifacts and attestations: append-only evidence. */
export const trailDecider: Decider<TrailCommand, TrailState, TrailEvent> = {
  initialState: { exists: false, trail: null, artifacts: {} },

  evolve(state, event) {
    switch (event.type) {
      case 'trail_reported':
      case 'trail_updated':
        return { ...state, exists: true, trail: event.data };
      case 'artifact_reported':
        return { ...state, artifacts: { ...state.artifacts, [event.data.fingerprint]: event.data } };
      case 'attestation_reported':
      case 'artifact_started_running':
      case 'artifact_stopped_running':
        return state;
    }
  },

  decide(command, state) {
    switch (command.kind) {
      case 'put_trail':
        if (!state.exists) return [{ type: 'trail_reported', data: command.trail }];
        return same(state.trail, command.trail) ? [] : [{ type: 'trail_updated', data: command.trail }];
      case 'report_artifact':
        if (!state.exists) throw new DomainError('not_found', 'Trail not found');
        if (same(state.artifacts[command.artifact.fingerprint], command.artifact)) return [];
        return [{ type: 'artifact_reported', data: command.artifact }];
      case 'report_attestation': {
        if (!state.exists) throw new DomainError('not_found', 'Trail not found');
        const fingerprint = command.attestation.artifact_fingerprint;
        if (fingerprint && !state.artifacts[fingerprint]) {
          throw new DomainError('not_found', 'Artifact not found in trail', {
            artifact_fingerprint: `no artifact ${fingerprint} was reported in this trail`,
          });
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
