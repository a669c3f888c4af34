import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BodyBytesInFlight, bodiesInFlightRefusal } from './body-bytes-in-flight';

describe('BodyBytesInFlight', () => {
  it("holds an organization's bytes up to its cap, then refuses without holding", () => {
    const budget = new BodyBytesInFlight({ perOrg: 100, total: 1000 });
    assert.equal(budget.take('a', 60), undefined);
    assert.equal(budget.take('a', 50), 'orgBodyBytesInFlight');
    assert.equal(budget.of('a'), 60);
    assert.equal(budget.take('b', 100), undefined, 'another organization has its own room');
    budget.give('a', 60);
    assert.equal(budget.take('a', 100), undefined);
  });

  it('refuses past the total whichever organization asks, and gives back to zero', () => {
    const budget = new BodyBytesInFlight({ perOrg: 100, total: 150 });
    assert.equal(budget.take('a', 100), undefined);
    assert.equal(budget.take('b', 60), 'bodyBytesInFlight');
    assert.equal(budget.take('b', 50), undefined);
    budget.give('a', 100);
    budget.give('b', 50);
    assert.deepEqual([budget.of(), budget.of('a'), budget.of('b')], [0, 0, 0]);
  });

  it('answers 429 naming the limit, with Retry-After', () => {
    const refusal = bodiesInFlightRefusal('orgBodyBytesInFlight', 100);
    assert.equal(refusal.getStatus(), 429);
    assert.match(Object.keys(refusal.errors ?? {})[0], /^orgBodyBytesInFlight$/);
    assert.equal(refusal.headers['Retry-After'], '2');
  });
});
