import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { allowlistsProjection } from './allowlists.projection';

const { given } = projectionSpec(allowlistsProjection);
const allowed = (description: string, at: number) => ({
  stream: 'allowlist-acme/prod',
  type: 'artifact_allowlisted',
  data: { environment: 'prod', fingerprint: 'a'.repeat(64), artifact_name: 'shop:1', description },
  at,
});

describe('allowlists projection', () => {
  it('keeps one document per allowed artifact: its latest reason, when first and last allowed', async () => {
    await given(allowed('hotfix', 3), allowed('approved', 8)).then('allowlists', [
      {
        _id: `acme/prod/${'a'.repeat(64)}`,
        org: 'acme',
        environment: 'prod',
        fingerprint: 'a'.repeat(64),
        artifact_name: 'shop:1',
        description: 'approved',
        created_at: 3,
        allowed_at: 8,
      },
    ]);
  });
});
