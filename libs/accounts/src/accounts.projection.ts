import { microsToSeconds } from '#des/event-store';
import type { Projection } from '#des/projections';

export const ORGANIZATIONS = 'organizations';
export const SERVICE_ACCOUNTS = 'service_accounts';
export const API_KEYS = 'api_keys';

export const accountId = (org: string, name: string) => `${org}/${name}`;

/** Organizations, service accounts and API keys (hashes only), with the last use of each key. */
export const accountsProjection: Projection = {
  name: 'accounts',
  collections: [
    { name: ORGANIZATIONS, indexes: [] },
    { name: SERVICE_ACCOUNTS, indexes: [{ name: 'by_org', keys: { org: 1, name: 1 } }] },
    {
      name: API_KEYS,
      indexes: [
        { name: 'by_hash', keys: { hash: 1 }, unique: true },
        { name: 'by_account', keys: { org: 1, service_account: 1, created_at: 1 } },
      ],
    },
  ],
  project(event) {
    const org = event.metadata.org as string;
    const at = microsToSeconds(event.recordedAt);
    const d = event.data as Record<string, never>;
    switch (event.type) {
      case 'organization_created':
        return [
          {
            collection: ORGANIZATIONS,
            id: d.name,
            update: { $set: { name: d.name, features: d.features, max_users: d.max_users, created_at: at } },
          },
        ];
      case 'organization_limits_set':
        return [{ collection: ORGANIZATIONS, id: org, update: { $set: { limits: d.limits } } }];
      case 'service_account_created':
        return [
          {
            collection: SERVICE_ACCOUNTS,
            id: accountId(org, d.name),
            update: {
              $set: {
                org,
                name: d.name,
                display_name: d.name,
                privilege: d.privilege,
                description: d.description,
                creating_user_id: d.creating_user_id,
                created_at: at,
                for_webhook: false,
              },
            },
          },
        ];
      case 'api_key_created':
        return [
          {
            collection: API_KEYS,
            id: d.id,
            update: {
              $set: {
                org,
                service_account: d.service_account,
                hash: d.hash,
                description: d.description,
                created_at: at,
                expires_at: d.expires_at,
                revoked: false,
                last_used_at: null,
              },
            },
          },
        ];
      case 'api_key_revoked':
        return [{ collection: API_KEYS, id: d.id, update: { $set: { revoked: true, revoked_at: at } } }];
      case 'api_key_used':
        return [{ collection: API_KEYS, id: d.id, update: { $max: { last_used_at: at } } }];
      default:
        return [];
    }
  },
};
