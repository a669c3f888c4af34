import type { Decider, DomainEvent } from '#des/kernel';
import { DomainError } from '#des/kernel';

/** The keys of one service account. */
export const apiKeysStream = (org: string, account: string) => `service_account-${org}/${account}`;

export type ApiKeyEvent =
  | DomainEvent<
      'api_key_created',
      { id: string; service_account: string; hash: string; description: string; expires_at: number }
    >
  | DomainEvent<'api_key_revoked', { id: string; service_account: string }>;

export type ApiKeyCommand =
  | {
      kind: 'create_api_key';
      id: string;
      account: string;
      hash: string;
      description: string;
      expiresAt: number;
    }
  | { kind: 'revoke_api_key'; id: string; account: string };

export interface ApiKeysState {
  keys: Record<string, { revoked: boolean }>;
}

/** `expires_at` is in UNIX seconds; 0 means the key never expires. */
export const apiKeysDecider: Decider<ApiKeyCommand, ApiKeysState, ApiKeyEvent> = {
  initialState: { keys: {} },

  evolve(state, event) {
    switch (event.type) {
      case 'api_key_created':
        return { keys: { ...state.keys, [event.data.id]: { revoked: false } } };
      case 'api_key_revoked':
        return { keys: { ...state.keys, [event.data.id]: { revoked: true } } };
    }
  },

  decide(command, state, { now }) {
    switch (command.kind) {
      case 'create_api_key':
        // Ids are new UUIDs; one seen before is a write replayed by mistake, never a second key.
        if (state.keys[command.id]) throw new Error(`API key ${command.id} exists already`);
        if (command.expiresAt !== 0 && command.expiresAt * 1_000_000 <= now) {
          throw new DomainError('invalid', 'expires_at cannot be in the past', {
            expires_at: 'must be 0 or absent (never expires), or a UNIX timestamp in the future',
          });
        }
        return [
          {
            type: 'api_key_created',
            data: {
              id: command.id,
              service_account: command.account,
              hash: command.hash,
              description: command.description,
              expires_at: command.expiresAt,
            },
          },
        ];
      case 'revoke_api_key': {
        const key = state.keys[command.id];
        if (!key) throw new DomainError('not_found', 'API key not found');
        if (key.revoked) return [];
        return [{ type: 'api_key_revoked', data: { id: command.id, service_account: command.account } }];
      }
    }
  },
};
