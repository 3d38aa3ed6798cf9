import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiError, setCsrfToken, SIGNED_OUT_EVENT, type Session } from '../api/client';

type AuthState =
  | { state: 'loading' }
  | { state: 'signed-out'; reason?: string }
  | { state: 'signed-in'; session: Session };

type AuthContextValue = {
  auth: AuthState;
  signIn: (username: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
};

const AuthContext = createContext<AuthContextValue | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [auth, setAuth] = useState<AuthState>({ state: 'loading' });
  const queryClient = useQueryClient();

  const signedIn = useCallback((session: Session) => {
    setCsrfToken(session.csrfToken);
    setAuth({ state: 'signed-in', session });
  }, []);

  useEffect(() => {
    let live = true;
    api.session().then(
      (s) => live && signedIn(s),
      (e) => live && setAuth({ state: 'signed-out', reason: e instanceof ApiError && e.status !== 401 ? e.message : undefined }),
    );
    const onSignedOut = (ev: Event) => {
      setCsrfToken('');
      queryClient.clear();
      setAuth({ state: 'signed-out', reason: (ev as CustomEvent<string>).detail });
    };
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => {
      live = false;
      window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
    };
  }, [queryClient, signedIn]);

  const value = useMemo<AuthContextValue>(
    () => ({
      auth,
      signIn: async (username, password) => signedIn(await api.signIn(username, password)),
      signOut: async () => {
        try {
          await api.signOut();
        } finally {
          setCsrfToken('');
          queryClient.clear();
          setAuth({ state: 'signed-out' });
        }
      },
    }),
    [auth, queryClient, signedIn],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthContextValue {
  const v = useContext(AuthContext);
  if (!v) throw new Error('useAuth outside AuthProvider');
  return v;
}

/** Whether the signed-in user is a platform admin (every team's admin, users, teams, audit). */
export function useIsAdmin(): boolean {
  const { auth } = useAuth();
  return auth.state === 'signed-in' && auth.session.user.role === 'platform-admin';
}
