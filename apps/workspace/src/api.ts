import { createDesClient, type DesClient } from '@des/client';
import type { Session } from './session';

/** The typed client of the service that served this page, presenting the session's key. */
export function clientFor(session: Session): DesClient {
  return createDesClient({ base: window.location.origin, key: session.key });
}

export { answer, type Answer } from '@des/client';
