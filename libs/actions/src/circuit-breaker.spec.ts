import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CircuitBreaker } from './circuit-breaker';

const breaker = () => new CircuitBreaker({ failures: 3, cooldownMs: 1000, trialMs: 200 });

describe('CircuitBreaker', () => {
  it('stays closed below the threshold, and a success resets the count', () => {
    const b = breaker();
    b.record('t', false, 0);
    b.record('t', false, 0);
    b.record('t', true, 0);
    b.record('t', false, 0);
    b.record('t', false, 0);
    assert.deepEqual(b.admit('t', 0), { go: true });
  });

  it('opens after consecutive failures, refusing tries until it half-opens', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.record('t', false, 100);
    const refused = b.admit('t', 500);
    assert.equal(refused.go, false);
    assert.equal(!refused.go && refused.retryAt, 1100);
    assert.match(!refused.go ? refused.reason : '', /circuit is open after 3 consecutive failures/);
    assert.deepEqual(b.admit('other', 500), { go: true }, 'each target has its own circuit');
  });

  it('lets one trial through when half-open; the others wait for it', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.record('t', false, 0);
    assert.deepEqual(b.admit('t', 1000), { go: true });
    const waiting = b.admit('t', 1050);
    assert.equal(!waiting.go && waiting.retryAt, 1200);
    b.record('t', true, 1100);
    assert.deepEqual(b.admit('t', 1100), { go: true }, 'closed again by the trial');
  });

  it('opens again for a whole cooldown when the trial fails, or when it never reports', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.record('t', false, 0);
    assert.deepEqual(b.admit('t', 1000), { go: true });
    b.record('t', false, 1150);
    const reopened = b.admit('t', 1200);
    assert.equal(!reopened.go && reopened.retryAt, 2150);
    assert.deepEqual(b.admit('t', 2150), { go: true }, 'a trial');
    assert.deepEqual(b.admit('t', 2400), { go: true }, 'the trial never reported: another one');
  });
});
