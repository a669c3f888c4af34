import { createDesClient, type DesClient } from '@des/client';
import { createContext, useContext, useEffect, useState } from 'react';
import { answer, type Answer } from '@des/client';
import type { Session } from './session';

export { answer, type Answer } from '@des/client';
export type { Schemas } from '@des/client';

/** The typed client of the service that served this page, presenting the session's key. */
export function clientFor(session: Session): DesClient {
  return createDesClient({ base: window.location.origin, key: session.key });
}

/** The signed-in session, given by the workspace's frame to every page. */
export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('a workspace page outside the signed-in frame');
  return session;
}

/**
 * What a page shows: the answer of `load` with the session's client, loaded
 * again whenever `deps` change (the instant, the page, a filter); an answer
 * that arrives after the page moved on is dropped.
 */
export function useAnswer<T>(
  load: (des: DesClient, org: string) => Promise<Answer<T>>,
  deps: unknown[],
): Answer<T> | null {
  const session = useSession();
  const key = [session, ...deps];
  // The answer remembers what it was loaded for: in the render where the
  // inputs have just changed (before the effect runs), the previous answer
  // is stale and must not be shown as the new one's.
  const [loaded, setLoaded] = useState<{ for: unknown[]; answer: Answer<T> } | null>(null);
  useEffect(() => {
    let current = true;
    void load(clientFor(session), session.org).then(
      (answer) => current && setLoaded({ for: key, answer }),
      (error: unknown) =>
        current && setLoaded({ for: key, answer: { ok: false, status: 0, message: String(error) } }),
    );
    return () => {
      current = false;
    };
  }, key);
  return loaded && sameInputs(loaded.for, key) ? loaded.answer : null;
}

function sameInputs(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

export type FetchedFile =
  { ok: true; blob: Blob; filename: string } | { ok: false; status: number; message: string };

/** A file the service answered (parsed as a Blob), under the name its Content-Disposition gives. */
export async function fileOf(
  call: Promise<{ data?: unknown; error?: unknown; response: Response }>,
  fallback: string,
): Promise<FetchedFile> {
  const done = await call;
  const answered = await answer(
    Promise.resolve(done as { data?: Blob; error?: unknown; response: Response }),
  );
  if (!answered.ok) return answered;
  const named = /filename="([^"]+)"/.exec(done.response.headers.get('Content-Disposition') ?? '');
  return { ok: true, blob: answered.data, filename: named?.[1] ?? fallback };
}

/** The JSON answer of an operation that also answers CSV (the change population). */
export function json<T>(a: Answer<T | string>): Answer<T> {
  return a.ok && typeof a.data === 'string'
    ? { ok: false, status: 406, message: 'CSV where JSON was asked for' }
    : (a as Answer<T>);
}

/** Both answers, or the first refusal. */
export function both<A, B>(a: Answer<A>, b: Answer<B>): Answer<[A, B]> {
  if (!a.ok) return a;
  if (!b.ok) return b;
  return { ok: true, data: [a.data, b.data] };
}
