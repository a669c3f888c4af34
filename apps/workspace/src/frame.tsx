import {
  Navigate,
  NavLink,
  Outlet,
  useLocation,
  useNavigate,
  useParams,
  useSearchParams,
} from 'react-router';
import { SessionContext } from './api';
import { AsOfPicker } from './as-of';
import { currentSession, signOut } from './session';

/**
 * Every signed-in page: the organization, the instant the page is shown at,
 * the sections, and sign-out. A link to another organization's page (or any
 * page before sign-in) asks for a key first, then comes back.
 */
export function Frame() {
  const navigate = useNavigate();
  const { org = '' } = useParams();
  const { pathname, search } = useLocation();
  const [params] = useSearchParams();
  const session = currentSession();
  if (!session || session.org !== org) {
    const next = `${pathname}${search}`;
    return (
      <Navigate to={`/sign-in?org=${encodeURIComponent(org)}&next=${encodeURIComponent(next)}`} replace />
    );
  }
  const at = params.get('at');
  const keep = at ? `?at=${encodeURIComponent(at)}` : '';
  const home = `/${encodeURIComponent(org)}`;
  return (
    <SessionContext.Provider value={session}>
      <a className="skip" href="#main">
        Skip to the page
      </a>
      <header>
        <span className="product">Delivery Evidence</span>
        <nav aria-label="Sections">
          <NavLink to={`${home}${keep}`} end>
            {org}
          </NavLink>
          <NavLink to={`${home}/changes${keep}`}>Changes</NavLink>
          <NavLink to={`${home}/ledger${keep}`}>Ledger</NavLink>
        </nav>
        <AsOfPicker />
        <button
          type="button"
          onClick={() => {
            signOut();
            navigate('/sign-in');
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </SessionContext.Provider>
  );
}
