import { describe, it } from 'node:test';
import { projectionSpec } from '#des/projections/testing';
import { evaluationsProjection } from './evaluations.projection';

const { given } = projectionSpec(evaluationsProjection);
const requested = (id: string) => ({
  stream: `evaluation-acme/${id}`,
  type: 'evaluation_requested',
  data: { id, requested_at: 1_500_000, recorded_at: 2_000_000, recorded_position: 7 },
});

describe('evaluations projection', () => {
  it('keeps each evaluation pending until it completes or fails, its instants in seconds', async () => {
    await given(
      requested('e1'),
      requested('e2'),
      requested('e3'),
      {
        stream: 'evaluation-acme/e1',
        type: 'evaluation_completed',
        data: { id: 'e1', result: { allow: true } },
      },
      { stream: 'evaluation-acme/e2', type: 'evaluation_failed', data: { id: 'e2', error: 'timeout' } },
      { stream: 'evaluation-acme/e3', type: 'evaluation_started', data: { id: 'e3', attempt: 2 } },
    ).then('evaluations', [
      { _id: 'acme/e1', status: 'completed', result: { allow: true }, requested_at: 1.5, recorded_at: 2 },
      { _id: 'acme/e2', status: 'failed', error: 'timeout' },
      { _id: 'acme/e3', org: 'acme', id: 'e3', status: 'pending', recorded_position: 7, attempts: 2 },
    ]);
  });
});
