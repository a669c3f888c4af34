import { StoreUnavailableError } from '#des/event-store';

/** A projection (or `reaction:<name>`) stopped by an event it cannot apply. */
export interface ProjectionFailure {
  projection: string;
  /** Global position of the event. */
  position: number;
  eventType?: string;
  eventId?: string;
  error: string;
  /** When it was stopped (ms since the epoch). */
  at: number;
}

/** A projection's project() threw, or the read store refused one of its writes: not an outage. */
export class CannotApply extends Error {
  constructor(
    readonly projection: string,
    readonly position: number,
    cause: unknown,
  ) {
    super(
      `${projection} cannot apply the event at log position ${position}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'CannotApply';
  }
}

/** An engine that cannot be reached: the batch is retried, for every projection, until it is back. */
export function isOutage(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof StoreUnavailableError) return true;
  }
  return false;
}

/** A failure as it is thrown out of project(): outages and known attributions as they are. */
export function attribute(error: unknown, projection: string, position: number): Error {
  if (error instanceof CannotApply || isOutage(error)) return error as Error;
  return new CannotApply(projection, position, error);
}
