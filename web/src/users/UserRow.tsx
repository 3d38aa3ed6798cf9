import { useState } from 'react';
import { api, type User } from '../api/client';
import { useUserChange } from './queries';

function stateOf(u: User): string {
  const parts = [u.disabled ? 'Disabled' : 'Enabled'];
  if (u.mustChangePassword) parts.push('must choose a new password');
  return parts.join(', ');
}

/** One user with what a platform admin can do to them; the server decides what is allowed. */
export function UserRow({ u, onPassword }: { u: User; onPassword: (username: string, password: string) => void }) {
  const [note, setNote] = useState('');
  const toggle = useUserChange(() => (u.disabled ? api.enableUser(u.id) : api.disableUser(u.id)));
  const reset = useUserChange(() => api.resetPassword(u.id));
  const end = useUserChange(() => api.endSessions(u.id));
  const del = useUserChange(() => api.deleteUser(u.id));
  const error = toggle.error ?? reset.error ?? end.error ?? del.error;
  return (
    <tr>
      <td>{u.username}{u.superAdmin && <span className="muted"> (super-admin)</span>}</td>
      <td>{u.email}</td>
      <td>{u.role}</td>
      <td>{stateOf(u)}</td>
      <td className="actions">
        <button type="button" onClick={() => toggle.mutate(undefined)} disabled={toggle.isPending}
          aria-label={`${u.disabled ? 'Enable' : 'Disable'} ${u.username}`}>{u.disabled ? 'Enable' : 'Disable'}</button>
        <button type="button" aria-label={`Reset the password of ${u.username}`} disabled={reset.isPending}
          onClick={() => reset.mutate(undefined, { onSuccess: (r) => onPassword(u.username, r.generatedPassword ?? '') })}>Reset password</button>
        <button type="button" aria-label={`Sign out ${u.username} everywhere`} disabled={end.isPending}
          onClick={() => end.mutate(undefined, {
            onSuccess: (r) => setNote(`Ended ${r.sessionsEnded} sessions and revoked ${r.tokensRevoked} tokens.`),
          })}>Sign out everywhere</button>
        <button type="button" className="danger" aria-label={`Delete ${u.username}`} disabled={del.isPending}
          onClick={() => del.mutate(undefined)}>Delete</button>
        {note && <p role="status">{note}</p>}
        {error && <p className="error" role="alert">{error.message}</p>}
      </td>
    </tr>
  );
}
