import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { attestationTypesProjection } from './attestation-types.projection';

const { given } = projectionSpec(attestationTypesProjection);

describe('custom attestation types projection', () => {
  it('keeps each type with its one version in the shape the Kosli CLI reads, and its archiving', async () => {
    const schema = { type: 'object', properties: { coverage: { type: 'number' } } };
    const created = (name: string) => ({
      stream: `attestation_type-acme/${name}`,
      type: 'attestation_type_created',
      data: { name, description: 'd', schema, jq_rules: ['.coverage > 80'] },
    });
    await given(created('coverage'), created('old'), {
      stream: 'attestation_type-acme/old',
      type: 'attestation_type_archived',
      data: { name: 'old' },
      at: 9,
    }).then('custom_attestation_types', [
      {
        _id: 'acme/coverage',
        org: 'acme',
        archived: false,
        created_by: 'spec',
        versions: [
          {
            version: 1,
            timestamp: 1,
            created_by: 'spec',
            type_schema: schema,
            evaluator: { content_type: 'jq', rules: ['.coverage > 80'] },
          },
        ],
      },
      { _id: 'acme/old', archived: true, archived_at: 9, created_at: 2, last_modified_at: 9 },
    ]);
  });
});
