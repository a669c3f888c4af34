import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Navigate, RouterProvider, useLocation } from 'react-router';
import { Frame } from './frame';
import { Artifact } from './pages/artifact';
import { Changes } from './pages/changes';
import { Environment } from './pages/environment';
import { Flow } from './pages/flow';
import { Ledger } from './pages/ledger';
import { Organization } from './pages/organization';
import { SignIn } from './pages/sign-in';
import { Trail } from './pages/trail';
import { currentSession } from './session';
import './styles.css';

/** `/ui/`: the signed-in organization's page (keeping the instant asked for), else sign-in. */
function Home() {
  const { search } = useLocation();
  const session = currentSession();
  return <Navigate to={session ? `/${encodeURIComponent(session.org)}${search}` : '/sign-in'} replace />;
}

// Every page's address names its organization and carries its instant (`?at=`), so any view is a
// link an auditor can share; the API's html_url fields point at these (ADR 0023).
const router = createBrowserRouter(
  [
    { path: '/', element: <Home /> },
    { path: '/sign-in', element: <SignIn /> },
    {
      path: '/:org',
      element: <Frame />,
      children: [
        { index: true, element: <Organization /> },
        { path: 'environments/:env', element: <Environment /> },
        { path: 'changes', element: <Changes /> },
        { path: 'flows/:flow', element: <Flow /> },
        { path: 'flows/:flow/trails/:trail', element: <Trail /> },
        { path: 'flows/:flow/artifacts/:fingerprint', element: <Artifact /> },
        { path: 'ledger', element: <Ledger /> },
      ],
    },
    { path: '*', element: <Navigate to="/" replace /> },
  ],
  { basename: '/ui' },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
);
