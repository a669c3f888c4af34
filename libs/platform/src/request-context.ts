import { inReadScope, scopeRequestId } from '#des/read-store';

/**
 * The request a log line is written for: its id, carried by the one async
 * context the request enters (after its body is read), so the lines a
 * handler writes name their request without a child logger per request.
 * That context is the request's read scope, charged to `tenant` when the key
 * gate already knows it (its body's parse then takes that organization's
 * turns), else to no one until authentication names it.
 */
export function inRequest<T>(id: string, fn: () => T, tenant?: string): T {
  return inReadScope(fn, tenant, id);
}

/** The id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return scopeRequestId();
}
