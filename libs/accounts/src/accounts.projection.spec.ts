import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { accountsProjection } from './accounts.projection';

const { given } = projectionSpec(accountsProjection);
const history = [
  {
    stream: 'organization-acme',
    type: 'organization_created',
    data: { name: 'acme', features: ['controls'], max_users: 5 },
  },
  { stream: 'organization-acme', type: 'organization_limits_set', data: { limits: { writesPerSecond: 5 } } },
  {
    stream: 'service_account-acme/ci',
    type: 'service_account_created',
    data: { name: 'ci', privilege: 'member', description: 'pipelines', creating_user_id: 'admin' },
  },
  {
    stream: 'api_key-acme/ci',
    type: 'api_key_created',
    data: { id: 'k1', service_account: 'ci', hash: 'h1', description: 'one', expires_at: 0 },
  },
  {
    stream: 'api_key-acme/ci',
    type: 'api_key_created',
    data: { id: 'k2', service_account: 'ci', hash: 'h2', description: 'two', expires_at: 0 },
  },
  {
    stream: 'api_key_usage-acme/k1',
    type: 'api_key_used',
    data: { id: 'k1', service_account: 'ci' },
    at: 40,
  },
  // A use recorded late (another process) never moves the last use back.
  {
    stream: 'api_key_usage-acme/k1',
    type: 'api_key_used',
    data: { id: 'k1', service_account: 'ci' },
    at: 20,
  },
  { stream: 'api_key-acme/ci', type: 'api_key_revoked', data: { id: 'k2' }, at: 50 },
];

describe('accounts projection', () => {
  it('keeps the organization with its limits, its service accounts, and each key’s hash, last use and revocation', async () => {
    await given(...history).then('organizations', [
      { _id: 'acme', features: ['controls'], max_users: 5, limits: { writesPerSecond: 5 }, created_at: 1 },
    ]);
    await given(...history).then('service_accounts', [
      {
        _id: 'acme/ci',
        org: 'acme',
        privilege: 'member',
        display_name: 'ci',
        for_webhook: false,
        created_at: 3,
      },
    ]);
    await given(...history).then('api_keys', [
      { _id: 'k1', hash: 'h1', revoked: false, last_used_at: 40, created_at: 4 },
      { _id: 'k2', hash: 'h2', revoked: true, revoked_at: 50, last_used_at: null },
    ]);
  });
});
