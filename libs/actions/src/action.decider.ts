import type { Decider, DomainEvent } from '#des/kernel';
import { DomainError } from '#des/kernel';

/** Every action of an organization is one stream: numbers are handed out in order, once. */
export const actionsStream = (org: string) => `actions-${org}`;

export const TRIGGERS = [
  'ON_STARTED_ARTIFACT',
  'ON_EXITED_ARTIFACT',
  'ON_CHANGED_ARTIFACT',
  'ON_NON_COMPLIANT_ENV',
  'ON_COMPLIANT_ENV',
] as const;
export type Trigger = (typeof TRIGGERS)[number];

export const TARGET_TYPES = ['WEBHOOK', 'SLACK'] as const;
export type Target = {
  type: (typeof TARGET_TYPES)[number];
  webhook: string;
};

export const ACTION_NOT_FOUND = 'Action not found';

/** What a caller sets on an action. */
export type ActionFields = {
  environments: string[];
  triggers: Trigger[];
  targets: Target[];
  /** Only artifacts from these flows trigger it (empty: any). */
  flows: string[];
};

export type ActionEvent =
  | DomainEvent<
      'action_created',
      ActionFields & {
        number: number;
        name: string;
        type: 'environment';
        created_by: string;
        secret_id: string;
      }
    >
  | DomainEvent<'action_updated', ActionFields & { number: number }>
  | DomainEvent<'action_secret_rotated', { number: number; secret_id: string }>
  | DomainEvent<'action_deleted', { number: number }>;

export type ActionCommand =
  | ({ kind: 'put_action'; name: string; createdBy: string } & ActionFields)
  | { kind: 'rotate_secret'; number: number }
  | { kind: 'delete_action'; number: number };

export interface ActionRecord extends ActionFields {
  number: number;
  name: string;
  /** Names the signing secret (derived from it and the service's key); a rotation replaces it. */
  secretId: string;
}

export interface ActionsState {
  /** Numbers handed out so far (a deleted action's number is never given again). */
  last: number;
  /** Live actions by number. */
  actions: Record<number, ActionRecord>;
}

const sameFields = (a: ActionFields, b: ActionFields) =>
  JSON.stringify([a.environments, a.triggers, a.targets, a.flows]) ===
  JSON.stringify([b.environments, b.triggers, b.targets, b.flows]);

function live(state: ActionsState, number: number): ActionRecord {
  const action = state.actions[number];
  if (!action) throw new DomainError('not_found', ACTION_NOT_FOUND);
  return action;
}

/**
 * The organization's actions: `PUT` by name creates one (the next number,
 * a new signing secret) or updates it (same number; the same body again
 * records nothing); rotation gives it a new secret; deletion retires its
 * number for good.
 */
export const actionsDecider: Decider<ActionCommand, ActionsState, ActionEvent> = {
  initialState: { last: 0, actions: {} },

  evolve(state, event) {
    switch (event.type) {
      case 'action_created': {
        const { number, name, environments, triggers, targets, flows, secret_id } = event.data;
        return {
          last: Math.max(state.last, number),
          actions: {
            ...state.actions,
            [number]: { number, name, environments, triggers, targets, flows, secretId: secret_id },
          },
        };
      }
      case 'action_updated': {
        const { number, environments, triggers, targets, flows } = event.data;
        const action = state.actions[number];
        return {
          ...state,
          actions: { ...state.actions, [number]: { ...action, environments, triggers, targets, flows } },
        };
      }
      case 'action_secret_rotated': {
        const action = state.actions[event.data.number];
        return {
          ...state,
          actions: { ...state.actions, [event.data.number]: { ...action, secretId: event.data.secret_id } },
        };
      }
      case 'action_deleted': {
        const { [event.data.number]: _deleted, ...actions } = state.actions;
        return { ...state, actions };
      }
    }
  },

  decide(command, state, { newId }) {
    switch (command.kind) {
      case 'put_action': {
        const fields: ActionFields = {
          environments: command.environments,
          triggers: command.triggers,
          targets: command.targets,
          flows: command.flows,
        };
        const existing = Object.values(state.actions).find((a) => a.name === command.name);
        if (existing) {
          if (sameFields(existing, fields)) return [];
          return [{ type: 'action_updated', data: { number: existing.number, ...fields } }];
        }
        return [
          {
            type: 'action_created',
            data: {
              number: state.last + 1,
              name: command.name,
              type: 'environment',
              created_by: command.createdBy,
              secret_id: newId(),
              ...fields,
            },
          },
        ];
      }
      case 'rotate_secret':
        live(state, command.number);
        return [{ type: 'action_secret_rotated', data: { number: command.number, secret_id: newId() } }];
      case 'delete_action':
        live(state, command.number);
        return [{ type: 'action_deleted', data: { number: command.number } }];
    }
  },
};
