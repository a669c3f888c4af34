import { catchError, map, type OperatorFunction } from 'rxjs';
import { currentScope } from '#des/read-store';
import { ApiError, DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS } from './api-error';

/**
 * The requests (by their async scope) that recorded a write the read models
 * did not show within the read-your-writes wait (ADR 0045). Weak: a scope
 * ends with its request.
 */
const unseen = new WeakSet<object>();

/** The current request recorded a write its read models do not show yet. */
export function noteUnseenWrite(): void {
  const scope = currentScope();
  if (scope) unseen.add(scope);
}

/** Whether the current request recorded a write its read models do not show yet. */
export function hasUnseenWrite(): boolean {
  const scope = currentScope();
  return scope !== undefined && unseen.has(scope);
}

/** What a write route answers when its write is recorded but not yet readable: never a 404 or the old state. */
export function recordedButNotYetReadable(): ApiError {
  return new ApiError(
    503,
    DATABASE_UNAVAILABLE,
    {
      readYourWrites:
        'The write is recorded, but the read models have not caught up with it yet; ' +
        'retry with the same Idempotency-Key to get its answer without recording it again.',
    },
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}

/**
 * A write route's answer, unless its request recorded a write the read models
 * do not show yet: whatever the handler built from them then (a 404, the state
 * before the write, a 2xx) would be a lie, so it answers 503 instead.
 */
export function answerOnlyWhatWasSeen<T>(): OperatorFunction<T, T> {
  return (source) =>
    source.pipe(
      map((answer) => {
        if (hasUnseenWrite()) throw recordedButNotYetReadable();
        return answer;
      }),
      catchError((error: unknown) => {
        throw hasUnseenWrite() ? recordedButNotYetReadable() : error;
      }),
    );
}
