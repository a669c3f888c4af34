import { type FormEvent, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { answer, clientFor } from '../api';
import { signIn } from '../session';

/** Sign-in with an API key (a reader key is enough), checked against the organization before it is kept. */
export function SignIn() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const session = { org: String(form.get('org') ?? '').trim(), key: String(form.get('key') ?? '').trim() };
    setBusy(true);
    const checked = await answer(
      clientFor(session).GET('/api/v2/environments/{org}', { params: { path: { org: session.org } } }),
    );
    setBusy(false);
    if (!checked.ok) {
      setProblem(
        checked.status === 401
          ? 'That key is not valid (401): it may be mistyped, expired or revoked.'
          : checked.status === 403
            ? `That key may not read '${session.org}' (403): it belongs to another organization.`
            : `The service answered ${checked.status}: ${checked.message}`,
      );
      return;
    }
    signIn(session);
    navigate(returnTo(params.get('next'), session.org));
  }

  return (
    <main className="sign-in">
      <h1>Delivery Evidence workspace</h1>
      <form onSubmit={submit} aria-describedby={problem ? 'sign-in-problem' : undefined}>
        <label htmlFor="org">Organization</label>
        <input
          id="org"
          name="org"
          autoComplete="organization"
          defaultValue={params.get('org') ?? ''}
          required
        />
        <label htmlFor="key">API key</label>
        <input id="key" name="key" type="password" autoComplete="off" required />
        <p className="hint">
          A reader key is enough. It is kept in this tab only, and forgotten when you sign out.
        </p>
        {problem && (
          <p id="sign-in-problem" role="alert" className="problem">
            {problem}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

/** Back to the page that asked for a key, when it is a workspace page of that organization; else its home. */
function returnTo(next: string | null, org: string): string {
  const home = `/${encodeURIComponent(org)}`;
  if (!next || !next.startsWith(`${home}`) || next.startsWith('//')) return home;
  const rest = next.slice(home.length);
  return rest === '' || rest.startsWith('/') || rest.startsWith('?') ? next : home;
}
