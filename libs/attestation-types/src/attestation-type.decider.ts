import type { Decider, DomainEvent } from '#des/kernel';
import { DomainError } from '#des/kernel';

export const attestationTypeStream = (org: string, name: string) => `attestation_type-${org}/${name}`;

export type AttestationTypeEvent =
  | DomainEvent<
      'attestation_type_created',
      { name: string; description: string; schema: Record<string, unknown>; jq_rules: string[] }
    >
  | DomainEvent<'attestation_type_archived', { name: string }>;

export type AttestationTypeCommand =
  | { kind: 'create'; name: string; description: string; schema: Record<string, unknown>; jqRules: string[] }
  | { kind: 'archive'; name: string };

export interface AttestationTypeState {
  exists: boolean;
  archived: boolean;
}

export const attestationTypeDecider: Decider<
  AttestationTypeCommand,
  AttestationTypeState,
  AttestationTypeEvent
> = {
  initialState: { exists: false, archived: false },
  evolve(state, event) {
    return event.type === 'attestation_type_created'
      ? { exists: true, archived: false }
      : { ...state, archived: true };
  },
  decide(command, state) {
    if (command.kind === 'create') {
      if (state.exists) throw new DomainError('invalid', 'Custom attestation type already exists');
      return [
        {
          type: 'attestation_type_created',
          data: {
            name: command.name,
            description: command.description,
            schema: command.schema,
            jq_rules: command.jqRules,
          },
        },
      ];
    }
    if (!state.exists) throw new DomainError('not_found', 'Custom attestation type not found');
    return state.archived ? [] : [{ type: 'attestation_type_archived', data: { name: command.name } }];
  },
};
