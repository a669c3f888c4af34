/**
 * The signed-in key and its organization, in sessionStorage only: gone when
 * the tab closes, never in a URL, a cookie or the page's HTML.
 */
const KEY = 'des.session';

export interface Session {
  org: string;
  key: string;
}

export function currentSession(): Session | null {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as Session;
    return session.org && session.key ? session : null;
  } catch {
    return null;
  }
}

export function signIn(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
}
