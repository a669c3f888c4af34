import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredEvent } from '#des/event-store';
import { unfinishedEvaluations } from './evaluation-jobs';

let position = 0;
const event = (type: string, data: Record<string, unknown>) =>
  ({ type, data, stream: `evaluation-acme/${data.id as string}`, position: ++position }) as unknown as StoredEvent;

describe('evaluation jobs (operators)', () => {
  it('lists the evaluations not finished, pending or running with their runs begun', () => {
    const jobs = unfinishedEvaluations([
      event('evaluation_requested', { id: 'done', requested_at: 1 }),
      event('evaluation_requested', { id: 'waits', requested_at: 2 }),
      event('evaluation_requested', { id: 'runs', requested_at: 3 }),
      event('evaluation_started', { id: 'done', attempt: 1 }),
      event('evaluation_completed', { id: 'done', result: { allow: true, violations: [] } }),
      event('evaluation_started', { id: 'runs', attempt: 1 }),
      event('evaluation_started', { id: 'runs', attempt: 2 }),
      event('evaluation_requested', { id: 'failed', requested_at: 4 }),
      event('evaluation_failed', { id: 'failed', error: { kind: 'timeout', message: '' } }),
    ]);
    assert.deepEqual(jobs, [
      { id: 'waits', kind: 'evaluation', state: 'pending', attempts: 0, requestedAt: 2 },
      { id: 'runs', kind: 'evaluation', state: 'running', attempts: 2, requestedAt: 3 },
    ]);
  });
});
