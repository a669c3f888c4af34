import type { Decider, DomainEvent } from '#des/kernel';
import { DomainError } from '#des/kernel';

export const attestationTypeStream = (org: string, name: string) => `attestation_type-${org}/${name}`;

/** A line of a type's summary: a name and the jq expression that computes it from the attestation data. */
export type SummaryEntry = { name: string; expression: string };

/** One version of a type: what its attestations are checked against. */
export type AttestationTypeVersion = {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  jq_rules: string[];
  /** Absent on types created before summaries were kept: none. */
  summary?: SummaryEntry[];
};

export type AttestationTypeEvent =
  | DomainEvent<'attestation_type_created', AttestationTypeVersion>
  /** A new version: a create of an existing type with a different definition. */
  | DomainEvent<'attestation_type_versioned', AttestationTypeVersion & { version: number }>
  | DomainEvent<'attestation_type_archived', { name: string }>;

export type AttestationTypeCommand =
  | {
      /** Create the type, or give it a new version when it exists with another definition. */
      kind: 'create';
      org: string;
      name: string;
      description: string;
      schema: Record<string, unknown>;
      jqRules: string[];
      summary: SummaryEntry[];
    }
  | { kind: 'archive'; org: string; name: string };

export interface AttestationTypeState {
  exists: boolean;
  archived: boolean;
  /** Versions so far (1 once created). */
  versions: number;
  /** The latest version's definition. */
  latest: AttestationTypeVersion | null;
}

/** Kosli's words for a type that is not there (the CLI prints them). */
export const typeNotFound = (org: string, name: string) =>
  `Custom attestation type '${name}' does not exist for org '${org}'`;

const definition = (v: AttestationTypeVersion) =>
  JSON.stringify([v.description, v.schema, v.jq_rules, v.summary ?? []]);

export const attestationTypeDecider: Decider<
  AttestationTypeCommand,
  AttestationTypeState,
  AttestationTypeEvent
> = {
  initialState: { exists: false, archived: false, versions: 0, latest: null },
  evolve(state, event) {
    switch (event.type) {
      case 'attestation_type_created':
        return { exists: true, archived: false, versions: 1, latest: event.data };
      case 'attestation_type_versioned': {
        const { version, ...latest } = event.data;
        // A new version is the type in use again: it takes attestations, archived or not before.
        return { exists: true, archived: false, versions: version, latest };
      }
      case 'attestation_type_archived':
        return { ...state, archived: true };
    }
  },
  decide(command, state) {
    if (command.kind === 'create') {
      const next: AttestationTypeVersion = {
        name: command.name,
        description: command.description,
        schema: command.schema,
        jq_rules: command.jqRules,
        ...(command.summary.length ? { summary: command.summary } : {}),
      };
      if (!state.exists) return [{ type: 'attestation_type_created', data: next }];
      // Create or update, as Kosli does: the same definition again changes nothing.
      if (state.latest && definition(state.latest) === definition(next)) return [];
      return [{ type: 'attestation_type_versioned', data: { ...next, version: state.versions + 1 } }];
    }
    if (!state.exists) throw new DomainError('not_found', typeNotFound(command.org, command.name));
    return state.archived ? [] : [{ type: 'attestation_type_archived', data: { name: command.name } }];
  },
};
