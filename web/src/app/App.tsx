import { lazy, Suspense } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Link, RouterProvider } from 'react-router';
import { ApiError } from '../api/client';
import { AuditPage } from '../audit/AuditPage';
import { RequireAuth } from '../auth/RequireAuth';
import { AuthProvider, useIsAdmin } from '../auth/session';
import { SignInPage } from '../auth/SignInPage';
import { ClusterDetailPage } from '../clusters/ClusterDetailPage';
import { ClustersPage } from '../clusters/ClustersPage';
import { CredentialsPage } from '../credentials/CredentialsPage';
import { HomePage } from '../home/HomePage';
import { Loading } from '../ui/states';
import { TeamsPage } from '../teams/TeamsPage';
import { useTeamsToMakeIn } from '../teams/queries';
import { UsersPage } from '../users/UsersPage';
import { Layout } from './Layout';

// recharts is needed only here: loaded when the page is opened.
const MultiClusterPage = lazy(() => import('../multi/MultiClusterPage').then((m) => ({ default: m.MultiClusterPage })));

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; the rest is retried once.
      retry: (n, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && n < 1,
      refetchOnWindowFocus: false,
    },
  },
});

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p><Link to="/clusters">Go to Clusters</Link></p>
    </>
  );
}

function AdminOnly({ children }: { children: React.ReactNode }) {
  return useIsAdmin() ? <>{children}</> : (
    <>
      <h1>Platform admins only</h1>
      <p>This page needs the platform-admin role.</p>
    </>
  );
}

/** For whoever may make clusters and credentials: a platform admin, or an admin of some team. */
function TeamAdminOnly({ children }: { children: React.ReactNode }) {
  const { mayMake, isPending } = useTeamsToMakeIn();
  if (isPending) return <Loading what="your teams" />;
  return mayMake ? <>{children}</> : (
    <>
      <h1>Team admins only</h1>
      <p>This page needs the admin role on a team, or the platform-admin role.</p>
    </>
  );
}

const router = createBrowserRouter([
  { path: '/signin', element: <SignInPage /> },
  {
    element: <RequireAuth><Layout /></RequireAuth>,
    children: [
      { path: '/', element: <HomePage /> },
      { path: '/clusters', element: <ClustersPage /> },
      { path: '/clusters/multi', element: <Suspense fallback={<Loading what="the fleet overview" />}><MultiClusterPage /></Suspense> },
      { path: '/clusters/:id', element: <ClusterDetailPage /> },
      { path: '/credentials', element: <TeamAdminOnly><CredentialsPage /></TeamAdminOnly> },
      { path: '/users', element: <AdminOnly><UsersPage /></AdminOnly> },
      { path: '/teams', element: <AdminOnly><TeamsPage /></AdminOnly> },
      { path: '/audit', element: <AdminOnly><AuditPage /></AdminOnly> },
      { path: '*', element: <NotFound /> },
    ],
  },
]);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <RouterProvider router={router} />
      </AuthProvider>
    </QueryClientProvider>
  );
}
