import type { Decider, DomainEvent } from '#des/kernel';

export const policyStream = (org: string, name: string) => `policy-${org}/${name}`;

/** The policy types the service evaluates (environment policies; the spec shows `env`). */
export const POLICY_TYPES = ['env'] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

type Version = { version: number; comment: string; policy_yaml: string; created_by: string };

export type PolicyEvent =
  | DomainEvent<'policy_created', Version & { name: string; description: string; type: PolicyType }>
  | DomainEvent<'policy_version_added', Version & { description: string }>
  | DomainEvent<'policy_updated', { description: string }>;

export type PolicyCommand = {
  kind: 'put_policy';
  name: string;
  description: string;
  type: PolicyType;
  comment: string;
  yaml: string;
  author: string;
};

export interface PolicyState {
  exists: boolean;
  version: number;
  yaml: string;
  description: string;
}

/**
 * An environment policy: the first upload creates it at version 1, a changed
 * file adds a version, the same file again adds nothing (a changed
 * description alone is recorded without a version).
 */
export const policyDecider: Decider<PolicyCommand, PolicyState, PolicyEvent> = {
  initialState: { exists: false, version: 0, yaml: '', description: '' },

  evolve(state, event) {
    switch (event.type) {
      case 'policy_created':
      case 'policy_version_added':
        return {
          exists: true,
          version: event.data.version,
          yaml: event.data.policy_yaml,
          description: event.data.description,
        };
      case 'policy_updated':
        return { ...state, description: event.data.description };
    }
  },

  decide(command, state) {
    const version = (n: number) => ({
      version: n,
      comment: command.comment,
      policy_yaml: command.yaml,
      created_by: command.author,
    });
    if (!state.exists) {
      return [
        {
          type: 'policy_created',
          data: { name: command.name, description: command.description, type: command.type, ...version(1) },
        },
      ];
    }
    if (command.yaml !== state.yaml)
      return [
        {
          type: 'policy_version_added',
          data: { description: command.description, ...version(state.version + 1) },
        },
      ];
    if (command.description !== state.description)
      return [{ type: 'policy_updated', data: { description: command.description } }];
    return [];
  },
};
