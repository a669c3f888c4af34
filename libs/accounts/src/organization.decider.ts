import type { Decider, DomainEvent, Privilege } from '#des/platform';
import { DomainError } from '#des/platform';

export const FEATURES = ['evaluations', 'controls'] as const;
export type Feature = (typeof FEATURES)[number];

export const organizationStream = (org: string) => `organization-${org}`;

export type OrganizationEvent =
  | DomainEvent<'organization_created', { name: string; features: Feature[]; max_users: number }>
  | DomainEvent<
      'service_account_created',
      { name: string; description: string; privilege: Privilege; creating_user_id: string }
    >;

export type OrganizationCommand =
  | { kind: 'create_organization'; name: string; features: Feature[]; maxUsers: number }
  | {
      kind: 'create_service_account';
      name: string;
      description: string;
      privilege: Privilege;
      createdBy: string;
    };

export interface OrganizationState {
  exists: boolean;
  name: string;
  features: Feature[];
  maxUsers: number;
  accounts: Record<string, { privilege: Privilege }>;
}

/**
 * The organization owns its membership: service accounts are created on its
 * stream, so the maximum number of users is enforced by one aggregate.
 */
export const organizationDecider: Decider<OrganizationCommand, OrganizationState, OrganizationEvent> = {
  initialState: { exists: false, name: '', features: [], maxUsers: 0, accounts: {} },

  evolve(state, event) {
    switch (event.type) {
      case 'organization_created':
        return {
          ...state,
          exists: true,
          name: event.data.name,
          features: event.data.features,
          maxUsers: event.data.max_users,
        };
      case 'service_account_created':
        return {
          ...state,
          accounts: { ...state.accounts, [event.data.name]: { privilege: event.data.privilege } },
        };
    }
  },

  decide(command, state) {
    switch (command.kind) {
      case 'create_organization':
        if (state.exists) throw new DomainError(400, `Organization '${command.name}' already exists`);
        return [
          {
            type: 'organization_created',
            data: { name: command.name, features: [...command.features], max_users: command.maxUsers },
          },
        ];
      case 'create_service_account':
        if (!state.exists) throw new DomainError(404, 'Organization not found');
        if (state.accounts[command.name]) throw new DomainError(400, 'Service account already exists');
        if (Object.keys(state.accounts).length >= state.maxUsers) {
          throw new DomainError(400, `Maximum number of users has been reached for '${state.name}'`);
        }
        return [
          {
            type: 'service_account_created',
            data: {
              name: command.name,
              description: command.description,
              privilege: command.privilege,
              creating_user_id: command.createdBy,
            },
          },
        ];
    }
  },
};
