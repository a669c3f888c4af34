import type { Decider, DomainEvent, Privilege, TenantLimits } from '#des/kernel';
import { DomainError, TENANT_LIMIT_NAMES } from '#des/kernel';

export const FEATURES = ['evaluations', 'controls'] as const;
export type Feature = (typeof FEATURES)[number];

export const organizationStream = (org: string) => `organization-${org}`;

/** An organization's own limits, each over its configured default; a limit absent is the default, 0 unlimited. */
export type LimitOverrides = Partial<TenantLimits>;
export type LimitName = keyof TenantLimits;

export type OrganizationEvent =
  | DomainEvent<'organization_created', { name: string; features: Feature[]; max_users: number }>
  | DomainEvent<
      'service_account_created',
      { name: string; description: string; privilege: Privilege; creating_user_id: string }
    >
  /** The organization's overrides after the change (the whole set: one absent was reset). */
  | DomainEvent<'organization_limits_set', { limits: LimitOverrides }>;

export type OrganizationCommand =
  | { kind: 'create_organization'; name: string; features: Feature[]; maxUsers: number }
  | {
      kind: 'create_service_account';
      name: string;
      description: string;
      privilege: Privilege;
      createdBy: string;
    }
  /** Sets some overrides and resets others to the default (`reset` names them, or `all`). */
  | { kind: 'set_limits'; set: LimitOverrides; reset: LimitName[] | 'all' };

export interface OrganizationState {
  exists: boolean;
  name: string;
  features: Feature[];
  maxUsers: number;
  accounts: Record<string, { privilege: Privilege }>;
  limits: LimitOverrides;
}

/**
 * The organization owns its membership: service accounts are created on its
 * stream, so the maximum number of users is enforced by one aggregate.
 */
export const organizationDecider: Decider<OrganizationCommand, OrganizationState, OrganizationEvent> = {
  initialState: { exists: false, name: '', features: [], maxUsers: 0, accounts: {}, limits: {} },

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
      case 'organization_limits_set':
        return { ...state, limits: event.data.limits };
    }
  },

  decide(command, state) {
    switch (command.kind) {
      case 'create_organization':
        if (state.exists) throw new DomainError('invalid', `Organization '${command.name}' already exists`);
        return [
          {
            type: 'organization_created',
            data: { name: command.name, features: [...command.features], max_users: command.maxUsers },
          },
        ];
      case 'create_service_account':
        if (!state.exists) throw new DomainError('not_found', 'Organization not found');
        if (state.accounts[command.name]) throw new DomainError('invalid', 'Service account already exists');
        if (Object.keys(state.accounts).length >= state.maxUsers) {
          throw new DomainError('invalid', `Maximum number of users has been reached for '${state.name}'`);
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
      case 'set_limits': {
        if (!state.exists) throw new DomainError('not_found', 'Organization not found');
        const limits = changedOverrides(state.limits, command.set, command.reset);
        if (sameOverrides(limits, state.limits)) return [];
        return [{ type: 'organization_limits_set', data: { limits } }];
      }
    }
  },
};

/** The overrides after resetting `reset` and setting `set`; each limit a whole number ≥ 0. */
function changedOverrides(
  current: LimitOverrides,
  set: LimitOverrides,
  reset: LimitName[] | 'all',
): LimitOverrides {
  const errors: Record<string, string> = {};
  for (const name of [...Object.keys(set), ...(reset === 'all' ? [] : reset)]) {
    if (!(TENANT_LIMIT_NAMES as readonly string[]).includes(name)) errors[name] = 'unknown limit';
  }
  for (const [name, value] of Object.entries(set)) {
    if (!Number.isSafeInteger(value) || value < 0) errors[name] = 'must be a whole number ≥ 0 (0: unlimited)';
  }
  if (Object.keys(errors).length) throw new DomainError('invalid', 'Invalid organization limits', errors);
  const kept = reset === 'all' ? {} : omit(current, reset);
  const limits: LimitOverrides = {};
  // In the order of TENANT_LIMIT_NAMES, so equal sets are equal events.
  for (const name of TENANT_LIMIT_NAMES) {
    const value = set[name] ?? kept[name];
    if (value !== undefined) limits[name] = value;
  }
  return limits;
}

function omit(limits: LimitOverrides, names: LimitName[]): LimitOverrides {
  return Object.fromEntries(Object.entries(limits).filter(([name]) => !names.includes(name as LimitName)));
}

function sameOverrides(a: LimitOverrides, b: LimitOverrides): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as LimitName[]);
  return [...keys].every((k) => a[k] === b[k]);
}
