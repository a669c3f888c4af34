import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { controlsProjection } from './controls.projection';

const { given } = projectionSpec(controlsProjection);

describe('controls projection', () => {
  it('keeps one document per control: created, updated to a new version, tagged', async () => {
    const fields = { name: 'Change management', description: 'd', links: [] };
    await given(
      {
        stream: 'control-acme/SOC2-CC8',
        type: 'control_created',
        data: { identifier: 'SOC2-CC8', ...fields, created_by: 'ci', version: 1 },
      },
      {
        stream: 'control-acme/SOC2-CC8',
        type: 'control_updated',
        data: { identifier: 'SOC2-CC8', ...fields, name: 'Changes', version: 2 },
        at: 5,
      },
      { stream: 'control-acme/SOC2-CC8', type: 'tags_changed', data: { tags: { owner: 'sec' } }, at: 7 },
    ).then('controls', [
      {
        _id: 'acme/SOC2-CC8',
        org: 'acme',
        identifier: 'SOC2-CC8',
        name: 'Changes',
        version: 2,
        created_by: 'ci',
        archived: false,
        tags: [{ key: 'owner', value: 'sec' }],
        created_at: 1,
        last_modified_at: 7,
      },
    ]);
  });

  it('marks a control archived, then not', async () => {
    const created = {
      stream: 'control-acme/C1',
      type: 'control_created',
      data: { identifier: 'C1', name: 'c', description: '', links: {}, created_by: 'ci', version: 1 },
    };
    const archived = {
      stream: 'control-acme/C1',
      type: 'control_archived',
      data: { identifier: 'C1' },
      at: 5,
    };
    await given(created, archived).then('controls', [
      { _id: 'acme/C1', archived: true, last_modified_at: 5 },
    ]);
    await given(created, archived, {
      stream: 'control-acme/C1',
      type: 'control_unarchived',
      data: { identifier: 'C1' },
      at: 9,
    }).then('controls', [{ _id: 'acme/C1', archived: false, last_modified_at: 9 }]);
  });
});
