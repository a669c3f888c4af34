import type { Decider, DomainEvent } from '#des/kernel';
import { DomainError } from '#des/kernel';

/** One stream per organization and key (the key hashed: any header value makes a safe stream name). */
export const idempotencyStream = (org: string, keyHash: string) => `idempotency-${org}/${keyHash}`;

/** How long a key answers with its first response (24 h, in microseconds). */
export const REPLAY_WINDOW_MICROS = 24 * 3600 * 1_000_000;
/** A claim without an answer after this long is taken as abandoned (its process died mid-request). */
export const CLAIM_TIMEOUT_MICROS = 120 * 1_000_000;

export type StoredResponse = {
  status: number;
  content_type: string | null;
} & (
  | {
      /**
       * The body encrypted (`seal`, under a key derived from the service key): an
       * answer may hold a secret shown once, such as a new API key.
       */
      sealed_body: string;
    }
  /** The body as sent (events recorded before answers were sealed). */
  | { body: string }
);

export type IdempotencyEvent =
  | DomainEvent<
      'idempotency_key_claimed',
      {
        request_hash: string;
        method: string;
        path: string;
        /** Names this attempt; the request's writes carry it (absent in early events). */
        claim_id?: string;
      }
    >
  | DomainEvent<'idempotent_response_recorded', { request_hash: string } & StoredResponse>
  | DomainEvent<'idempotency_key_released', { request_hash: string; status: number }>;

export type IdempotencyCommand =
  | {
      kind: 'claim';
      requestHash: string;
      method: string;
      path: string;
      /** When an unanswered claim counts as abandoned (default CLAIM_TIMEOUT_MICROS). */
      claimTimeoutMicros?: number;
    }
  | { kind: 'record'; requestHash: string; response: StoredResponse }
  | { kind: 'release'; requestHash: string; status: number };

/** The attempts at one request under the key, oldest first: a retry resumes their writes. */
type Attempts = { requestHash: string; since: number; attempts: string[] };

export type IdempotencyState =
  | { status: 'free'; released?: Attempts }
  | ({ status: 'claimed' } & Attempts)
  | ({ status: 'answered'; response: StoredResponse } & Attempts);

export const KEY_REUSED = 'This Idempotency-Key was used with a different request';
export const KEY_IN_FLIGHT = 'A request with this Idempotency-Key is still in progress; retry the request.';

/**
 * An Idempotency-Key: claimed by the first request, answered with its
 * response, which the same request within 24 h gets again without running.
 * A different request under the key is refused (422); a retry while the first
 * is still running is told to retry (409). A response that a retry could
 * change (5xx, 409, 429) releases the key instead of being kept.
 */
export const idempotencyDecider: Decider<IdempotencyCommand, IdempotencyState, IdempotencyEvent> = {
  initialState: { status: 'free' },

  evolve(state, event, recordedAt) {
    switch (event.type) {
      case 'idempotency_key_claimed': {
        const { request_hash: requestHash, claim_id } = event.data;
        // The same request again after an attempt that never answered, or answered with a
        // status a retry may change: every attempt so far may have written part of it.
        const before =
          state.status === 'free' ? state.released : state.status === 'claimed' ? state : undefined;
        const continues =
          before?.requestHash === requestHash && recordedAt - before.since < REPLAY_WINDOW_MICROS;
        const attempt = claim_id ?? `claim-${recordedAt}`;
        const attempts = continues ? [...before.attempts, attempt] : [attempt];
        return { status: 'claimed', requestHash, since: recordedAt, attempts };
      }
      case 'idempotent_response_recorded': {
        const { request_hash, ...response } = event.data;
        const attempts = state.status === 'claimed' ? state.attempts : [];
        return { status: 'answered', requestHash: request_hash, since: recordedAt, attempts, response };
      }
      case 'idempotency_key_released':
        return state.status === 'claimed'
          ? { status: 'free', released: { ...state, since: recordedAt } }
          : { status: 'free' };
    }
  },

  decide(command, state, { now, newId }) {
    switch (command.kind) {
      case 'claim': {
        const live =
          (state.status === 'answered' && now - state.since < REPLAY_WINDOW_MICROS) ||
          (state.status === 'claimed' &&
            now - state.since < (command.claimTimeoutMicros ?? CLAIM_TIMEOUT_MICROS));
        if (state.status !== 'free' && live) {
          if (state.requestHash !== command.requestHash) {
            throw new DomainError('unprocessable', KEY_REUSED, {
              'Idempotency-Key': 'already used within 24 hours with another method, path or body',
            });
          }
          if (state.status === 'claimed') throw new DomainError('conflict', KEY_IN_FLIGHT);
          return []; // answered: the caller replays state.response
        }
        return [
          {
            type: 'idempotency_key_claimed',
            data: {
              request_hash: command.requestHash,
              method: command.method,
              path: command.path,
              claim_id: newId(),
            },
          },
        ];
      }
      case 'record':
        if (state.status !== 'claimed' || state.requestHash !== command.requestHash) return [];
        return [
          {
            type: 'idempotent_response_recorded',
            data: { request_hash: command.requestHash, ...command.response },
          },
        ];
      case 'release':
        if (state.status !== 'claimed' || state.requestHash !== command.requestHash) return [];
        return [
          {
            type: 'idempotency_key_released',
            data: { request_hash: command.requestHash, status: command.status },
          },
        ];
    }
  },
};

/** Whether a response is kept for replays: not one that a retry could change. */
export const isReplayable = (status: number) => status < 500 && status !== 409 && status !== 429;
