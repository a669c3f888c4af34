import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../../libs/platform/src/domain-error';
import {
  CLAIM_TIMEOUT_MICROS,
  idempotencyDecider as d,
  IdempotencyCommand,
  IdempotencyEvent,
  isReplayable,
  KEY_IN_FLIGHT,
  KEY_REUSED,
  REPLAY_WINDOW_MICROS,
} from './idempotency.decider';

const T0 = 1_790_000_000_000_000;
/** Events with the instant each was recorded at. */
const given = (history: [IdempotencyEvent, number][]) =>
  history.reduce((s, [e, at]) => d.evolve(s, e, at), d.initialState);
const when = (history: [IdempotencyEvent, number][], command: IdempotencyCommand, now: number) =>
  d.decide(command, given(history), { now, newId: () => 'id' });

const claim = (requestHash = 'h1'): IdempotencyCommand => ({
  kind: 'claim',
  requestHash,
  method: 'POST',
  path: '/api/v2/x',
});
const claimed: IdempotencyEvent = {
  type: 'idempotency_key_claimed',
  data: { request_hash: 'h1', method: 'POST', path: '/api/v2/x' },
};
const response = { status: 201, content_type: 'application/json', body: '{"ok":true}' };
const answered: IdempotencyEvent = {
  type: 'idempotent_response_recorded',
  data: { request_hash: 'h1', ...response },
};
const refusal = (status: number, message: string) => (e: unknown) =>
  e instanceof DomainError && e.status === status && e.message === message;

describe('idempotency decider', () => {
  it('claims a new key', () => {
    assert.deepEqual(when([], claim(), T0), [claimed]);
  });

  it('answers the same request within 24 h with nothing new (the caller replays), another request 422', () => {
    const history: [IdempotencyEvent, number][] = [
      [claimed, T0],
      [answered, T0 + 5],
    ];
    assert.deepEqual(when(history, claim(), T0 + REPLAY_WINDOW_MICROS - 1), []);
    assert.deepEqual(given(history), { status: 'answered', requestHash: 'h1', since: T0 + 5, response });
    assert.throws(() => when(history, claim('h2'), T0 + 10), refusal(422, KEY_REUSED));
  });

  it('lets the key be claimed again after 24 h', () => {
    const history: [IdempotencyEvent, number][] = [
      [claimed, T0],
      [answered, T0],
    ];
    assert.deepEqual(when(history, claim('h2'), T0 + REPLAY_WINDOW_MICROS), [
      { ...claimed, data: { ...claimed.data, request_hash: 'h2' } },
    ]);
  });

  it('tells a retry of a request still running to retry (409), and takes over an abandoned claim', () => {
    assert.throws(() => when([[claimed, T0]], claim(), T0 + 1), refusal(409, KEY_IN_FLIGHT));
    assert.throws(() => when([[claimed, T0]], claim('h2'), T0 + 1), refusal(422, KEY_REUSED));
    assert.deepEqual(when([[claimed, T0]], claim(), T0 + CLAIM_TIMEOUT_MICROS), [claimed]);
  });

  it('records the response of its own claim only, once', () => {
    const record: IdempotencyCommand = { kind: 'record', requestHash: 'h1', response };
    assert.deepEqual(when([[claimed, T0]], record, T0), [answered]);
    assert.deepEqual(
      when(
        [
          [claimed, T0],
          [answered, T0],
        ],
        record,
        T0,
      ),
      [],
    );
    assert.deepEqual(when([[claimed, T0]], { ...record, requestHash: 'h2' }, T0), []);
  });

  it('releases the key after a response a retry could change, so the retry runs', () => {
    const released: IdempotencyEvent = {
      type: 'idempotency_key_released',
      data: { request_hash: 'h1', status: 503 },
    };
    assert.deepEqual(when([[claimed, T0]], { kind: 'release', requestHash: 'h1', status: 503 }, T0), [
      released,
    ]);
    assert.deepEqual(
      when(
        [
          [claimed, T0],
          [released, T0],
        ],
        claim(),
        T0 + 1,
      ),
      [claimed],
    );
    assert.deepEqual([200, 201, 400, 404, 422, 409, 429, 500, 503].map(isReplayable), [
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});
