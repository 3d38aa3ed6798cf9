import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { ApiError } from '../api/client';
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
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));

  if (auth.state === 'signed-in') return <Navigate to={next} replace />;
  const reason = auth.state === 'signed-out' ? auth.reason : undefined;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await signIn(username, password);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="signin" id="main">
      <form className="panel signin-form" onSubmit={submit} aria-labelledby="signin-title" key={location.key}>
        <h1 id="signin-title">Sign in to KubeOpera</h1>
        {reason && !error && <p className="notice" role="status">{reason}</p>}
        <label htmlFor="username">Username</label>
        <input id="username" name="username" autoComplete="username" value={username} required
          onChange={(e) => setUsername(e.target.value)} />
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" value={password} required
          onChange={(e) => setPassword(e.target.value)} />
        {error && <p className="error" role="alert">{error}</p>}
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
