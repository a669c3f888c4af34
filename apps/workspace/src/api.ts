import { createDesClient, type DesClient } from '@des/client';
import type { Session } from './session';

/** The typed client of the service that served this page, presenting the session's key. */
export function clientFor(session: Session): DesClient {
  return createDesClient({ base: window.location.origin, key: session.key });
}

/** What the service answered, as the page shows it: the body, or the status and the spec's error message. */
export type Answer<T> = { ok: true; data: T } | { ok: false; status: number; message: string };

export async function answer<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<Answer<T>> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return { ok: true, data };
  const message = (error as { message?: string } | undefined)?.message ?? response.statusText;
  return { ok: false, status: response.status, message };
}
