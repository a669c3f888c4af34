import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { flowsProjection } from './flows.projection';

const { given } = projectionSpec(flowsProjection);
const created = (name: string, tags: Record<string, string> = {}) => ({
  stream: `flow-acme/${name}`,
  type: 'flow_created',
  data: { name, description: 'first', template: null, tags },
});

describe('flows projection', () => {
  it('keeps one document per flow: created, updated, tags changed, each stamped with its time', async () => {
    await given(
      created('shop', { team: 'web' }),
      created('api'),
      {
        stream: 'flow-acme/shop',
        type: 'flow_updated',
        data: { name: 'shop', description: 'second', template: { version: 1, trail: { attestations: [] } } },
        at: 10,
      },
      { stream: 'flow-acme/shop', type: 'tags_changed', data: { tags: { team: 'web', tier: '1' } }, at: 20 },
    ).then('flows', [
      { _id: 'acme/api', org: 'acme', name: 'api', description: 'first', tags: [], created_at: 2 },
      {
        _id: 'acme/shop',
        name: 'shop',
        description: 'second',
        template: { version: 1, trail: { attestations: [] } },
        tags: [
          { key: 'team', value: 'web' },
          { key: 'tier', value: '1' },
        ],
        created_at: 1,
        last_modified_at: 20,
      },
    ]);
  });

  it('ignores other aggregates’ events', async () => {
    await given({ stream: 'trail-acme/shop/t', type: 'trail_reported', data: { name: 't' } }).then(
      'flows',
      [],
    );
  });

  it('marks a flow archived and unarchived, and a renamed one with where it went and where it came from', async () => {
    await given(created('shop'), {
      stream: 'flow-acme/shop',
      type: 'flow_archived',
      data: { name: 'shop' },
      at: 5,
    }).then('flows', [{ _id: 'acme/shop', archived: true, last_modified_at: 5 }]);
    await given(
      created('shop'),
      { stream: 'flow-acme/shop', type: 'flow_archived', data: { name: 'shop' }, at: 5 },
      { stream: 'flow-acme/shop', type: 'flow_unarchived', data: { name: 'shop' }, at: 6 },
    ).then('flows', [{ _id: 'acme/shop', archived: false, last_modified_at: 6 }]);
    await given(
      created('shop', { team: 'web' }),
      {
        stream: 'flow-acme/store',
        type: 'flow_created',
        data: {
          name: 'store',
          description: 'first',
          template: null,
          tags: { team: 'web' },
          renamed_from: 'shop',
        },
        at: 7,
      },
      { stream: 'flow-acme/shop', type: 'flow_renamed', data: { name: 'shop', new_name: 'store' }, at: 8 },
    ).then('flows', [
      { _id: 'acme/shop', renamed_to: 'store', renamed_from: null, last_modified_at: 8 },
      { _id: 'acme/store', renamed_to: null, renamed_from: 'shop', archived: false, created_at: 7 },
    ]);
  });
});
