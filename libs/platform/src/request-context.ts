import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request a log line is written for: its id, carried by the one
 * async context the request enters (after its body is read), so the lines
 * a handler writes name their request without a child logger per request.
 */
const current = new AsyncLocalStorage<string>();

/** Runs `fn` as the request `id`. */
export function inRequest<T>(id: string, fn: () => T): T {
  return current.run(id, fn);
}

/** The id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return current.getStore();
}
