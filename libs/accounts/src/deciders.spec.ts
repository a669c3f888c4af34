import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import { ApiKeyCommand, apiKeysDecider, ApiKeyEvent } from './api-keys.decider';
import { OrganizationCommand, organizationDecider, OrganizationEvent } from './organization.decider';

const NOW = 1_800_000_000_000_000; // µs
const organization = deciderSpec(organizationDecider, { now: NOW });
const apiKeys = deciderSpec(apiKeysDecider, { now: NOW });

const created: OrganizationEvent = {
  type: 'organization_created',
  data: { name: 'acme', features: ['evaluations'], max_users: 2 },
};
const account = (name: string): OrganizationEvent => ({
  type: 'service_account_created',
  data: { name, description: '', privilege: 'reader', creating_user_id: 'admin' },
});

describe('organization decider', () => {
  it('creates an organization once', () => {
    organization
      .given()
      .when({ kind: 'create_organization', name: 'acme', features: ['evaluations'], maxUsers: 2 })
      .then([created]);
    organization
      .given(created)
      .when({ kind: 'create_organization', name: 'acme', features: [], maxUsers: 1 })
      .thenError('invalid', "Organization 'acme' already exists", null);
  });

  it('creates service accounts up to the maximum number of users', () => {
    const cmd = (name: string): OrganizationCommand => ({
      kind: 'create_service_account',
      name,
      description: 'ci',
      privilege: 'member',
      createdBy: 'admin',
    });
    organization
      .given(created, account('admin'))
      .when(cmd('ci'))
      .then([
        {
          type: 'service_account_created',
          data: { name: 'ci', description: 'ci', privilege: 'member', creating_user_id: 'admin' },
        },
      ]);
    organization
      .given(created, account('admin'))
      .when(cmd('admin'))
      .thenError('invalid', 'Service account already exists');
    organization
      .given(created, account('a'), account('b'))
      .when(cmd('third'))
      .thenError('invalid', "Maximum number of users has been reached for 'acme'", null);
    organization.given().when(cmd('x')).thenError('not_found');
  });
});

describe('organization limits', () => {
  const limitsSet = (limits: Record<string, number>): OrganizationEvent => ({
    type: 'organization_limits_set',
    data: { limits },
  });
  const setLimits = (
    set: Record<string, number>,
    reset: Extract<OrganizationCommand, { kind: 'set_limits' }>['reset'] = [],
  ) => ({ kind: 'set_limits', set, reset }) as OrganizationCommand;

  it('records the whole set of overrides after each change', () => {
    organization
      .given(created)
      .when(setLimits({ writesPerSecond: 50, eventLogBytes: 0 }))
      .then([limitsSet({ eventLogBytes: 0, writesPerSecond: 50 })]);
    organization
      .given(created, limitsSet({ eventLogBytes: 0, writesPerSecond: 50 }))
      .when(setLimits({ writeBurst: 100 }, ['eventLogBytes']))
      .then([limitsSet({ writesPerSecond: 50, writeBurst: 100 })]);
    organization
      .given(created, limitsSet({ eventLogBytes: 0, writesPerSecond: 50 }))
      .when(setLimits({}, 'all'))
      .then([limitsSet({})]);
  });

  it('records nothing when nothing changes', () => {
    organization
      .given(created, limitsSet({ writesPerSecond: 50 }))
      .when(setLimits({ writesPerSecond: 50 }, ['writeBurst']))
      .then([]);
    organization.given(created).when(setLimits({}, 'all')).then([]);
  });

  it('refuses unknown limits, values that are not whole numbers ≥ 0, and an unknown organization', () => {
    const refusal = organization
      .given(created)
      .when(setLimits({ writesPerSecond: -1, eventLogBytes: 1.5, speed: 3 }, ['colour' as never]))
      .thenError('invalid', 'Invalid organization limits');
    assert.deepEqual(Object.keys(refusal.errors ?? {}).sort(), [
      'colour',
      'eventLogBytes',
      'speed',
      'writesPerSecond',
    ]);
    organization
      .given()
      .when(setLimits({ writesPerSecond: 1 }))
      .thenError('not_found', 'Organization not found');
  });
});

describe('api keys decider', () => {
  const keyCreated: ApiKeyEvent = {
    type: 'api_key_created',
    data: { id: 'k1', service_account: 'ci', hash: 'h', description: 'd', expires_at: 0 },
  };
  const revokedEvent: ApiKeyEvent = { type: 'api_key_revoked', data: { id: 'k1', service_account: 'ci' } };
  const create = (expiresAt: number): ApiKeyCommand => ({
    kind: 'create_api_key',
    id: 'k1',
    account: 'ci',
    hash: 'h',
    description: 'd',
    expiresAt,
  });
  const revoke: ApiKeyCommand = { kind: 'revoke_api_key', id: 'k1', account: 'ci' };

  it('creates keys that never expire or expire in the future', () => {
    apiKeys.given().when(create(0)).then([keyCreated]);
    const future = NOW / 1_000_000 + 60;
    apiKeys
      .given()
      .when(create(future))
      .then([{ ...keyCreated, data: { ...keyCreated.data, expires_at: future } }]);
  });

  it('refuses an expiry in the past (or now)', () => {
    const refusal = apiKeys
      .given()
      .when(create(NOW / 1_000_000))
      .thenError('invalid', 'expires_at cannot be in the past');
    assert.ok(refusal.errors?.expires_at);
  });

  it('revokes a key once; revoking again changes nothing; an unknown key is 404', () => {
    apiKeys.given(keyCreated).when(revoke).then([revokedEvent]);
    apiKeys.given(keyCreated, revokedEvent).when(revoke).then([]);
    apiKeys
      .given(keyCreated, revokedEvent)
      .when({ ...revoke, id: 'nope' })
      .thenError('not_found', 'API key not found', null);
  });
});
