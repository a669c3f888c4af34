import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deciderSpec, type Recorded, recordedAt } from '#des/kernel/testing';
import {
  CLAIM_TIMEOUT_MICROS,
  idempotencyDecider,
  IdempotencyCommand,
  IdempotencyEvent,
  isReplayable,
  KEY_IN_FLIGHT,
  KEY_REUSED,
  REPLAY_WINDOW_MICROS,
} from './idempotency.decider';

const T0 = 1_790_000_000_000_000;
const { given } = deciderSpec(idempotencyDecider);

const claim = (requestHash = 'h1'): IdempotencyCommand => ({
  kind: 'claim',
  requestHash,
  method: 'POST',
  path: '/api/v2/x',
});
const claimed: IdempotencyEvent = {
  type: 'idempotency_key_claimed',
  data: { request_hash: 'h1', method: 'POST', path: '/api/v2/x', claim_id: 'id' },
};
const claimedAs = (claim_id: string, request_hash = 'h1'): IdempotencyEvent => ({
  type: 'idempotency_key_claimed',
  data: { request_hash, method: 'POST', path: '/api/v2/x', claim_id },
});
const response = { status: 201, content_type: 'application/json', body: '{"ok":true}' };
const answered: IdempotencyEvent = {
  type: 'idempotent_response_recorded',
  data: { request_hash: 'h1', ...response },
};
const claimedAtT0 = recordedAt(claimed, T0);

describe('idempotency decider', () => {
  it('claims a new key', () => {
    given().when(claim(), { now: T0 }).then([claimed]);
  });

  it('answers the same request within 24 h with nothing new (the caller replays), another request 422', () => {
    const history = given(claimedAtT0, recordedAt(answered, T0 + 5));
    history.when(claim(), { now: T0 + REPLAY_WINDOW_MICROS - 1 }).then([]);
    assert.deepEqual(history.state, {
      status: 'answered',
      requestHash: 'h1',
      since: T0 + 5,
      attempts: ['id'],
      response,
    });
    history.when(claim('h2'), { now: T0 + 10 }).thenError('unprocessable', KEY_REUSED);
  });

  it('lets the key be claimed again after 24 h', () => {
    given(claimedAtT0, recordedAt(answered, T0))
      .when(claim('h2'), { now: T0 + REPLAY_WINDOW_MICROS })
      .then([{ ...claimed, data: { ...claimed.data, request_hash: 'h2' } }]);
  });

  it('tells a retry of a request still running to retry (409), and takes over an abandoned claim', () => {
    given(claimedAtT0)
      .when(claim(), { now: T0 + 1 })
      .thenError('conflict', KEY_IN_FLIGHT);
    given(claimedAtT0)
      .when(claim('h2'), { now: T0 + 1 })
      .thenError('unprocessable', KEY_REUSED);
    given(claimedAtT0)
      .when(claim(), { now: T0 + CLAIM_TIMEOUT_MICROS })
      .then([claimed]);
    // A shorter timeout (DES_IDEMPOTENCY_CLAIM_TIMEOUT_MS) takes an abandoned claim over sooner.
    const soon: IdempotencyCommand = {
      kind: 'claim',
      requestHash: 'h1',
      method: 'POST',
      path: '/api/v2/x',
      claimTimeoutMicros: 3_000_000,
    };
    given(claimedAtT0)
      .when(soon, { now: T0 + 2_999_999 })
      .thenError('conflict', KEY_IN_FLIGHT);
    given(claimedAtT0)
      .when(soon, { now: T0 + 3_000_000 })
      .then([claimed]);
  });

  it('records the response of its own claim only, once', () => {
    const record: IdempotencyCommand = { kind: 'record', requestHash: 'h1', response };
    given(claimedAtT0).when(record, { now: T0 }).then([answered]);
    given(claimedAtT0, recordedAt(answered, T0)).when(record, { now: T0 }).then([]);
    given(claimedAtT0)
      .when({ ...record, requestHash: 'h2' }, { now: T0 })
      .then([]);
  });

  it('releases the key after a response a retry could change, so the retry runs', () => {
    const released: IdempotencyEvent = {
      type: 'idempotency_key_released',
      data: { request_hash: 'h1', status: 503 },
    };
    given(claimedAtT0)
      .when({ kind: 'release', requestHash: 'h1', status: 503 }, { now: T0 })
      .then([released]);
    given(claimedAtT0, recordedAt(released, T0))
      .when(claim(), { now: T0 + 1 })
      .then([claimed]);
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

  it('keeps the attempts at one request that never answered, so a retry resumes their writes', () => {
    const released: IdempotencyEvent = {
      type: 'idempotency_key_released',
      data: { request_hash: 'h1', status: 503 },
    };
    const attemptsOf = (...events: Recorded<IdempotencyEvent>[]) => {
      const state = given(...events).state;
      return state.status === 'free' ? state.released?.attempts : state.attempts;
    };
    // Taken over after its process died, then released by a 503, then claimed again.
    const t = T0 + CLAIM_TIMEOUT_MICROS;
    assert.deepEqual(attemptsOf(claimedAtT0, recordedAt(claimedAs('c2'), t)), ['id', 'c2']);
    assert.deepEqual(
      attemptsOf(
        claimedAtT0,
        recordedAt(claimedAs('c2'), t),
        recordedAt(released, t + 1),
        recordedAt(claimedAs('c3'), t + 2),
      ),
      ['id', 'c2', 'c3'],
    );
    // The answer keeps them; a claim without an id (early events) is named by its instant.
    assert.deepEqual(attemptsOf(claimedAtT0, recordedAt(claimedAs('c2'), t), recordedAt(answered, t)), [
      'id',
      'c2',
    ]);
    const early: IdempotencyEvent = {
      type: 'idempotency_key_claimed',
      data: { request_hash: 'h1', method: 'POST', path: '/api/v2/x' },
    };
    assert.deepEqual(attemptsOf(recordedAt(early, T0)), [`claim-${T0}`]);
    // Another request, or the same one a day after the last attempt, starts afresh.
    assert.deepEqual(
      attemptsOf(claimedAtT0, recordedAt(released, T0), recordedAt(claimedAs('c2', 'h2'), t)),
      ['c2'],
    );
    assert.deepEqual(
      attemptsOf(
        claimedAtT0,
        recordedAt(released, T0),
        recordedAt(claimedAs('c2'), T0 + REPLAY_WINDOW_MICROS),
      ),
      ['c2'],
    );
    assert.deepEqual(
      attemptsOf(
        claimedAtT0,
        recordedAt(answered, T0),
        recordedAt(claimedAs('c2'), T0 + REPLAY_WINDOW_MICROS),
      ),
      ['c2'],
    );
  });
});
