import assert from 'node:assert/strict';
import type { DecideContext, Decider, DomainEvent } from './decider';
import { DomainError, type DomainErrorKind } from './domain-error';

/** An event of a history together with the instant (µs) it was recorded at. */
export interface Recorded<E> {
  event: E;
  recordedAt: number;
}

/** `event` as recorded at `recordedAt` (µs); plain events in a history are recorded at 0. */
export const recordedAt = <E>(event: E, at: number): Recorded<E> => ({ event, recordedAt: at });

export interface Then<E> {
  /** The command decided exactly `expected`; returns them. */
  then(expected: E[]): E[];
  /** The command was refused with `kind` (and `message`, and field `errors`, when given). */
  thenError(kind: DomainErrorKind, message?: string, errors?: Record<string, string> | null): DomainError;
  /** The decided events, for assertions of their own (throws the refusal, if any). */
  readonly events: E[];
}

export interface When<C, S, E> {
  /** The state the history folds to. */
  readonly state: S;
  /** Decide `command` on that state; `context` overrides the clock (`now`, µs) or the id source. */
  when(command: C, context?: Partial<DecideContext>): Then<E>;
}

/**
 * Given events / when command / then events (or then error): the shape of
 * every decider spec.
 *
 *     const { given } = deciderSpec(flowDecider);
 *     given(created).when(putFlow).then([]);
 *     given().when(archive).thenError('not_found', 'Flow not found');
 *
 * `defaults` sets the clock and the id source of every `when`.
 */
export function deciderSpec<C, S, E extends DomainEvent>(
  decider: Decider<C, S, E>,
  defaults: Partial<DecideContext> = {},
): { given(...history: (E | Recorded<E>)[]): When<C, S, E> } {
  return {
    given(...history) {
      const state = history.reduce(
        (s, item) =>
          'recordedAt' in item && 'event' in item
            ? decider.evolve(s, item.event, item.recordedAt)
            : decider.evolve(s, item as E, 0),
        decider.initialState,
      );
      return {
        state,
        when(command, context = {}) {
          const ctx: DecideContext = { now: 0, newId: () => 'id', ...defaults, ...context };
          let decided: E[] | undefined;
          let refusal: unknown;
          try {
            decided = decider.decide(command, state, ctx);
          } catch (error) {
            refusal = error;
          }
          const events = (): E[] => {
            if (decided === undefined) throw refusal;
            return decided;
          };
          return {
            then(expected) {
              assert.deepStrictEqual(events(), expected);
              return expected;
            },
            thenError(kind, message, errors) {
              if (decided !== undefined) assert.fail(`expected a refusal, got ${JSON.stringify(decided)}`);
              assert.ok(refusal instanceof DomainError, `expected a DomainError, got ${String(refusal)}`);
              assert.equal(refusal.kind, kind);
              if (message !== undefined) assert.equal(refusal.message, message);
              if (errors !== undefined) assert.deepStrictEqual(refusal.errors, errors);
              return refusal;
            },
            get events() {
              return events();
            },
          };
        },
      };
    },
  };
}

/** A tag patch, for the specs of taggable aggregates. */
export const tagPatch = (set_tags: Record<string, string>, remove_tags: string[] = []) => ({
  set_tags,
  remove_tags,
});
