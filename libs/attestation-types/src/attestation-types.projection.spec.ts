import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { attestationTypesProjection } from './attestation-types.projection';

const { given } = projectionSpec(attestationTypesProjection);

describe('custom attestation types projection', () => {
  const schema = { type: 'object', properties: { coverage: { type: 'number' } } };
  const created = (name: string) => ({
    stream: `attestation_type-acme/${name}`,
    type: 'attestation_type_created',
    data: { name, description: 'd', schema, jq_rules: ['.coverage > 80'] },
  });

  it('keeps each type with its version in the shape the Kosli CLI reads, and its archiving', async () => {
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
        summary: [],
        versions: [
          {
            version: 1,
            timestamp: 1,
            created_by: 'spec',
            type_schema: schema,
            evaluator: { content_type: 'jq', rules: ['.coverage > 80'] },
            summary: null,
          },
        ],
      },
      { _id: 'acme/old', archived: true, archived_at: 9, created_at: 2, last_modified_at: 9 },
    ]);
  });

  it('a new version follows the others and becomes the definition in use; it takes attestations again', async () => {
    const summary = [{ name: 'Coverage', expression: '.coverage' }];
    await given(
      created('coverage'),
      {
        stream: 'attestation_type-acme/coverage',
        type: 'attestation_type_archived',
        data: { name: 'coverage' },
      },
      {
        stream: 'attestation_type-acme/coverage',
        type: 'attestation_type_versioned',
        data: {
          name: 'coverage',
          description: 'd',
          schema,
          jq_rules: ['.coverage > 90'],
          summary,
          version: 2,
        },
        at: 7,
      },
    ).then('custom_attestation_types', [
      {
        _id: 'acme/coverage',
        archived: false,
        jq_rules: ['.coverage > 90'],
        summary,
        created_at: 1,
        last_modified_at: 7,
        versions: [
          {
            version: 1,
            timestamp: 1,
            created_by: 'spec',
            type_schema: schema,
            evaluator: { content_type: 'jq', rules: ['.coverage > 80'] },
            summary: null,
          },
          {
            version: 2,
            timestamp: 7,
            created_by: 'spec',
            type_schema: schema,
            evaluator: { content_type: 'jq', rules: ['.coverage > 90'] },
            summary,
          },
        ],
      },
    ]);
  });
});
