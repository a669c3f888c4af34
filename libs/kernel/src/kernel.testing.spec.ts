import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Decider, DomainEvent } from './decider';
import { DomainError } from './domain-error';
import { deciderSpec, recordedAt } from './kernel.testing';

type Counted = DomainEvent<'counted', { by: number }>;
/** A counter that refuses to go below zero; its state remembers when it last moved. */
const counter: Decider<number, { total: number; at: number }, Counted> = {
  initialState: { total: 0, at: 0 },
  evolve: (s, e, at) => ({ total: s.total + e.data.by, at }),
  decide(by, s) {
    if (s.total + by < 0) throw new DomainError('invalid', 'below zero', { by: 'too small' });
    return by === 0 ? [] : [{ type: 'counted', data: { by } }];
  },
};
const counted = (by: number): Counted => ({ type: 'counted', data: { by } });
const { given } = deciderSpec(counter);

describe('deciderSpec', () => {
  it('folds the history, with the instant of each recorded event', () => {
    assert.deepEqual(given(counted(2), recordedAt(counted(3), 7)).state, { total: 5, at: 7 });
    assert.deepEqual(given(counted(2)).state, { total: 2, at: 0 });
  });

  it('passes when the events or the refusal are the expected ones', () => {
    given(counted(1))
      .when(2)
      .then([counted(2)]);
    given().when(0).then([]);
    const refusal = given().when(-1).thenError('invalid', 'below zero', { by: 'too small' });
    assert.equal(refusal.errors?.by, 'too small');
  });

  it('fails when they are not', () => {
    assert.throws(
      () =>
        given()
          .when(2)
          .then([counted(3)]),
      assert.AssertionError,
    );
    assert.throws(() => given().when(2).thenError('invalid'), /expected a refusal/);
    assert.throws(() => given().when(-1).thenError('not_found'), assert.AssertionError);
    assert.throws(() => given().when(-1).then([]), DomainError);
    assert.throws(() => given().when(-1).events, DomainError);
  });
});
