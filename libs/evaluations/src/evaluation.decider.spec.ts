import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import { EvaluationCommand, evaluationDecider, EvaluationEvent, interrupted } from './evaluation.decider';

const { given } = deciderSpec(evaluationDecider);
const data = {
  id: 'e1',
  requested_at: 1_800_000_000,
  recorded_at: 1_800_000_000_000_000,
  recorded_position: 42,
  context: { trails: [{ flow: 'backend', trail: 'main-1' }] },
  policy: { files: { 'policy.rego': 'package policy\nallow := true' } },
  params: {},
};
const request: EvaluationCommand = { kind: 'request', data };
const requested: EvaluationEvent = { type: 'evaluation_requested', data };
const result = { allow: false, violations: ['no tests'] };
const complete: EvaluationCommand = { kind: 'complete', id: 'e1', result };
const completed: EvaluationEvent = { type: 'evaluation_completed', data: { id: 'e1', result } };
const error = { kind: 'timeout' as const, message: 'took longer than 1000 ms' };
const fail: EvaluationCommand = { kind: 'fail', id: 'e1', error };
const failed: EvaluationEvent = { type: 'evaluation_failed', data: { id: 'e1', error } };

describe('evaluation decider', () => {
  it('records a request once', () => {
    given().when(request).then([requested]);
    given(requested).when(request).then([]);
  });

  it('finishes a pending evaluation once, as completed or failed', () => {
    given(requested).when(complete).then([completed]);
    given(requested).when(fail).then([failed]);
  });

  it('appends nothing for a retried or duplicated job', () => {
    given(requested, completed).when(complete).then([]);
    given(requested, completed).when(fail).then([]);
    given(requested, failed).when(complete).then([]);
  });

  it('records each run before it begins, and fails the evaluation instead of a run past maxStarts', () => {
    const start: EvaluationCommand = { kind: 'start', id: 'e1', maxStarts: 2 };
    const started = (attempt: number): EvaluationEvent => ({
      type: 'evaluation_started',
      data: { id: 'e1', attempt },
    });
    given(requested).when(start).then([started(1)]);
    given(requested, started(1)).when(start).then([started(2)]);
    given(requested, started(1), started(2))
      .when(start)
      .then([
        {
          type: 'evaluation_failed',
          data: { id: 'e1', error: { kind: 'service_error', message: interrupted(2) } },
        },
      ]);
    assert.match(interrupted(2), /interrupted 2 times/);
    given(requested, started(1)).when(complete).then([completed]);
    given(requested, started(1), completed).when(start).then([]);
    given().when(start).then([]);
  });

  it('appends nothing for a job whose request is not recorded', () => {
    given().when(complete).then([]);
  });
});
