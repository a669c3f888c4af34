/** An event as a decider emits it: a stable snake_case type and its data. */
export interface DomainEvent<T extends string = string, D extends object = Record<string, unknown>> {
  type: T;
  data: D;
}

/** What a decider may use besides the command and the state: passed in, never global. */
export interface DecideContext {
  /** Now, in microseconds since the epoch. */
  now: number;
  newId(): string;
}

/**
 * Pure domain logic of one aggregate: `evolve` folds its events into state,
 * `decide` answers a command with new events (or throws an ApiError).
 */
export interface Decider<C, S, E extends DomainEvent> {
  initialState: S;
  evolve(state: S, event: E, recordedAt: number): S;
  decide(command: C, state: S, context: DecideContext): E[];
}
