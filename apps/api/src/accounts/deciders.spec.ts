import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../../libs/platform/src/domain-error';
import { apiKeysDecider, ApiKeyEvent } from './api-keys.decider';
import { organizationDecider, OrganizationEvent } from './organization.decider';

const NOW = 1_800_000_000_000_000; // µs
const ctx = { now: NOW, newId: () => 'id' };

function given<E extends { type: string }, S>(
  decider: { initialState: S; evolve(s: S, e: E, at: number): S },
  events: E[],
): S {
  return events.reduce((s, e) => decider.evolve(s, e, NOW), decider.initialState);
}

function refusal(fn: () => unknown): { status: number; message: string; errors: unknown } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof DomainError);
    return { status: error.status, message: error.message, errors: error.errors };
  }
  assert.fail('expected a refusal');
}

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
    const events = organizationDecider.decide(
      { kind: 'create_organization', name: 'acme', features: ['evaluations'], maxUsers: 2 },
      given(organizationDecider, []),
      ctx,
    );
    assert.deepEqual(events, [created]);
    assert.deepEqual(
      refusal(() =>
        organizationDecider.decide(
          { kind: 'create_organization', name: 'acme', features: [], maxUsers: 1 },
          given(organizationDecider, [created]),
          ctx,
        ),
      ),
      { status: 409, message: "Organization 'acme' already exists", errors: null },
    );
  });

  it('creates service accounts up to the maximum number of users', () => {
    const cmd = (name: string) =>
      ({
        kind: 'create_service_account',
        name,
        description: 'ci',
        privilege: 'member',
        createdBy: 'admin',
      }) as const;
    assert.deepEqual(
      organizationDecider.decide(cmd('ci'), given(organizationDecider, [created, account('admin')]), ctx),
      [
        {
          type: 'service_account_created',
          data: { name: 'ci', description: 'ci', privilege: 'member', creating_user_id: 'admin' },
        },
      ],
    );
    assert.equal(
      refusal(() =>
        organizationDecider.decide(
          cmd('admin'),
          given(organizationDecider, [created, account('admin')]),
          ctx,
        ),
      ).message,
      'Service account already exists',
    );
    assert.deepEqual(
      refusal(() =>
        organizationDecider.decide(
          cmd('third'),
          given(organizationDecider, [created, account('a'), account('b')]),
          ctx,
        ),
      ),
      { status: 409, message: "Maximum number of users has been reached for 'acme'", errors: null },
    );
    assert.equal(
      refusal(() => organizationDecider.decide(cmd('x'), given(organizationDecider, []), ctx)).status,
      404,
    );
  });
});

describe('api keys decider', () => {
  const keyCreated: ApiKeyEvent = {
    type: 'api_key_created',
    data: { id: 'k1', service_account: 'ci', hash: 'h', description: 'd', expires_at: 0 },
  };
  const create = (expiresAt: number) =>
    ({ kind: 'create_api_key', id: 'k1', account: 'ci', hash: 'h', description: 'd', expiresAt }) as const;

  it('creates keys that never expire or expire in the future', () => {
    assert.deepEqual(apiKeysDecider.decide(create(0), given(apiKeysDecider, []), ctx), [keyCreated]);
    const future = NOW / 1_000_000 + 60;
    const [event] = apiKeysDecider.decide(create(future), given(apiKeysDecider, []), ctx);
    assert.equal(event.type === 'api_key_created' && event.data.expires_at, future);
  });

  it('refuses an expiry in the past (or now)', () => {
    const r = refusal(() => apiKeysDecider.decide(create(NOW / 1_000_000), given(apiKeysDecider, []), ctx));
    assert.equal(r.status, 400);
    assert.equal(r.message, 'expires_at cannot be in the past');
    assert.ok((r.errors as Record<string, string>).expires_at);
  });

  it('revokes a key once; revoking again changes nothing; an unknown key is 404', () => {
    const revoke = { kind: 'revoke_api_key', id: 'k1', account: 'ci' } as const;
    assert.deepEqual(apiKeysDecider.decide(revoke, given(apiKeysDecider, [keyCreated]), ctx), [
      { type: 'api_key_revoked', data: { id: 'k1', service_account: 'ci' } },
    ]);
    const revoked = given(apiKeysDecider, [
      keyCreated,
      { type: 'api_key_revoked', data: { id: 'k1', service_account: 'ci' } },
    ]);
    assert.deepEqual(apiKeysDecider.decide(revoke, revoked, ctx), []);
    assert.deepEqual(
      refusal(() => apiKeysDecider.decide({ ...revoke, id: 'nope' }, revoked, ctx)),
      {
        status: 404,
        message: 'API key not found',
        errors: null,
      },
    );
  });
});
