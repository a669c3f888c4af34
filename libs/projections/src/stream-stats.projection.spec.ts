import { describe, it } from 'node:test';
import { projectionSpec } from './projections.testing';
import { streamStatsProjection } from './stream-stats.projection';

const { given } = projectionSpec(streamStatsProjection);

describe('stream stats projection', () => {
  it('counts each stream’s events once, with its last type, revision and instant', async () => {
    await given(
      { stream: 'flow-acme/shop', type: 'flow_created', data: {} },
      { stream: 'trail-acme/shop/t', type: 'trail_reported', data: {} },
      { stream: 'flow-acme/shop', type: 'flow_updated', data: {}, at: 30 },
    ).then('stream_stats', [
      {
        _id: 'flow-acme/shop',
        org: 'acme',
        events: 2,
        revision: 1,
        last_type: 'flow_updated',
        last_recorded_at: 30,
      },
      { _id: 'trail-acme/shop/t', events: 1, revision: 0, last_type: 'trail_reported', last_recorded_at: 2 },
    ]);
  });
});
