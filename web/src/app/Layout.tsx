import { NavLink, Outlet } from 'react-router';
import { useAuth, useIsAdmin } from '../auth/session';
import { useTeamsToMakeIn } from '../teams/queries';

export function Layout() {
  const { auth, signOut } = useAuth();
  const admin = useIsAdmin();
  // Team admins manage their teams' credentials.
  const { mayMake } = useTeamsToMakeIn();
  const user = auth.state === 'signed-in' ? auth.session.user : undefined;
  return (
    <>
      <a href="#main" className="skip">Skip to content</a>
      <header className="topbar">
        <NavLink to="/" className="brand">KubeOpera</NavLink>
        <nav aria-label="Main">
          <NavLink to="/clusters" end>Clusters</NavLink>
          <NavLink to="/clusters/multi">Multi-Cluster</NavLink>
          {mayMake && <NavLink to="/credentials">Credentials</NavLink>}
          {admin && <NavLink to="/users">Users</NavLink>}
          {admin && <NavLink to="/teams">Teams</NavLink>}
          {admin && <NavLink to="/audit">Audit log</NavLink>}
        </nav>
        {user && (
          <div className="user">
            <span>{user.username} <span className="muted">({user.role})</span></span>
            <button type="button" onClick={() => signOut()}>Sign out</button>
          </div>
        )}
      </header>
      <main id="main" className="content">
        <Outlet />
      </main>
    </>
  );
}
