import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Navigate, RouterProvider, useNavigate } from 'react-router';
import { AsOfPicker } from './as-of';
import { Organization } from './pages/organization';
import { SignIn } from './pages/sign-in';
import { currentSession, signOut } from './session';
import './styles.css';

/** Every signed-in page: the organization, the instant it is shown at, and sign-out. */
function Workspace() {
  const navigate = useNavigate();
  const session = currentSession();
  if (!session) return <Navigate to="/sign-in" replace />;
  return (
    <>
      <header>
        <span className="product">Delivery Evidence</span>
        <span className="org">{session.org}</span>
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
      <main>
        <h1>{session.org}</h1>
        <Organization session={session} />
      </main>
    </>
  );
}

const router = createBrowserRouter(
  [
    { path: '/', element: <Workspace /> },
    { path: '/sign-in', element: <SignIn /> },
    { path: '*', element: <Navigate to="/" replace /> },
  ],
  { basename: '/ui' },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
);
