import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import { useAuth } from './session';

/** Only same-app paths are followed after sign-in. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/clusters';
}

export function SignInPage() {
  const { auth, signIn } = useAuth();
  const [params] = useSearchParams();
  const location = useLocation();
  const [username, setUsername] = useState('');
  const [pw, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // Set when the server says this user must choose a new password first
  // (after a reset, or an account an admin made): the form then asks for it.
  const [mustChange, setMustChange] = useState(false);
  const [newPw, setNewPw] = useState('');
  const [newPw2, setNewPw2] = useState('');
  const next = safeNext(params.get('next'));
  const methods = useQuery({ queryKey: ['sign-in-methods'], queryFn: api.signInMethods, staleTime: Infinity });
  const sso = methods.data?.sso;
  const password = methods.data?.password ?? true;
  const ssoError = params.get('sso_error');

  if (auth.state === 'signed-in') return <Navigate to={next} replace />;
  const reason = auth.state === 'signed-out' ? auth.reason : undefined;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      if (mustChange) {
        if (newPw !== newPw2) throw new Error('The two new passwords differ.');
        await api.changeOwnPassword(username, pw, newPw);
        await signIn(username, newPw);
      } else {
        await signIn(username, pw);
      }
    } catch (err) {
      if (err instanceof ApiError && err.problem.code === 'password_change_required') {
        setMustChange(true);
        setError('');
      } else {
        setError(err instanceof ApiError ? (err.fieldErrors().newPassword ?? err.message) : String(err));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="signin" id="main">
      <form className="panel signin-form" onSubmit={submit} aria-labelledby="signin-title" key={location.key}>
        <h1 id="signin-title">Sign in to KubeOpera</h1>
        {reason && !error && <p className="notice" role="status">{reason}</p>}
        {ssoError && <p className="error" role="alert">{ssoError}</p>}
        {sso && (
          // A navigation, not a fetch: the server sends the browser on to the identity provider.
          <a className="button primary" href={`${sso.loginURL}?next=${encodeURIComponent(next)}`}>
            Sign in with {sso.displayName}
          </a>
        )}
        {password && (
          <>
            <label htmlFor="username">Username</label>
            <input id="username" name="username" autoComplete="username" value={username} required
              onChange={(e) => setUsername(e.target.value)} />
            <label htmlFor="password">Password</label>
            <input id="password" name="password" type="password" autoComplete="current-password" value={pw} required
              onChange={(e) => setPassword(e.target.value)} />
            {mustChange && (
              <>
                <p className="notice" role="status">Choose a new password before signing in: the one you have was given to you to be replaced.</p>
                <label htmlFor="new-password">New password</label>
                <input id="new-password" name="new-password" type="password" autoComplete="new-password" value={newPw} required
                  onChange={(e) => setNewPw(e.target.value)} />
                <label htmlFor="new-password-again">New password again</label>
                <input id="new-password-again" name="new-password-again" type="password" autoComplete="new-password" value={newPw2} required
                  onChange={(e) => setNewPw2(e.target.value)} />
              </>
            )}
            {error && <p className="error" role="alert">{error}</p>}
            <button type="submit" className={sso ? '' : 'primary'} disabled={busy}>
              {busy ? 'Signing in…' : mustChange ? 'Set password and sign in' : 'Sign in'}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
