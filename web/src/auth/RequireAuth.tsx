import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { Loading } from '../ui/states';
import { useAuth } from './session';

/** Sends a signed-out visitor to sign-in, and back here afterwards. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { auth } = useAuth();
  const location = useLocation();
  if (auth.state === 'loading') return <Loading what="your session" />;
  if (auth.state === 'signed-out') {
    const next = location.pathname + location.search;
    return <Navigate to={`/signin?next=${encodeURIComponent(next)}`} replace />;
  }
  return <>{children}</>;
}
