import type { Decider, DomainEvent } from '#des/kernel';

/** One stream per environment: the artifacts allowed to run there whatever their evidence. */
export const allowlistStream = (org: string, environment: string) => `allowlist-${org}/${environment}`;

export type AllowlistEntry = {
  fingerprint: string;
  artifact_name: string;
  /** Why it is allowed (the Kosli CLI's `--reason`). */
  description: string;
};

export type AllowlistEvent = DomainEvent<'artifact_allowlisted', AllowlistEntry & { environment: string }>;

export type AllowlistCommand = { kind: 'allow_artifact'; environment: string } & AllowlistEntry;

export interface AllowlistState {
  entries: Record<string, AllowlistEntry>;
}

/**
 * An environment's allow-list (the Kosli CLI's `allow artifact`): an artifact
 * allowed there counts as compliant in that environment's assessment. Allowing
 * the same artifact again with the same name and reason records nothing; with
 * another reason, it is recorded again (the latest reason stands).
 */
export const allowlistDecider: Decider<AllowlistCommand, AllowlistState, AllowlistEvent> = {
  initialState: { entries: {} },

  evolve(state, event) {
    const { environment: _environment, ...entry } = event.data;
    return { entries: { ...state.entries, [entry.fingerprint]: entry } };
  },

  decide(command, state) {
    const { kind: _kind, environment, fingerprint, artifact_name, description } = command;
    const known = state.entries[fingerprint];
    if (known && known.artifact_name === artifact_name && known.description === description) return [];
    return [{ type: 'artifact_allowlisted', data: { environment, fingerprint, artifact_name, description } }];
  },
};
