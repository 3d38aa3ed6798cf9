import { useState } from 'react';
import { api, type User } from '../api/client';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { confirmationOf, type AccessAction } from './endsAccess';
import { useUserChange } from './queries';

function stateOf(u: User): string {
  const parts = [u.disabled ? 'Disabled' : 'Enabled'];
  if (u.mustChangePassword) parts.push('must choose a new password');
  return parts.join(', ');
}

/**
 * One user with what a platform admin can do to them; the server decides
 * what is allowed. What ends the user's sessions and tokens asks first.
 */
export function UserRow({ u, onPassword }: { u: User; onPassword: (username: string, password: string) => void }) {
  const [note, setNote] = useState('');
  const [asking, setAsking] = useState<AccessAction>();
  const enable = useUserChange(() => api.enableUser(u.id));
  const change = useUserChange(async (a: AccessAction) => {
    switch (a) {
      case 'disable': await api.disableUser(u.id); break;
      case 'reset': { const r = await api.resetPassword(u.id); onPassword(u.username, r.generatedPassword ?? ''); break; }
      case 'end': { const r = await api.endSessions(u.id); setNote(`Ended ${r.sessionsEnded} sessions and revoked ${r.tokensRevoked} tokens.`); break; }
      case 'delete': await api.deleteUser(u.id); break;
    }
  });
  const ask = (a: AccessAction) => { change.reset(); setAsking(a); };
  const q = asking && confirmationOf(asking, u);
  return (
    <tr>
      <td>{u.username}{u.superAdmin && <span className="muted"> (super-admin)</span>}</td>
      <td>{u.email}</td>
      <td>{u.role}</td>
      <td>{stateOf(u)}</td>
      <td className="actions">
        {u.disabled
          ? <button type="button" onClick={() => enable.mutate(undefined)} disabled={enable.isPending} aria-label={`Enable ${u.username}`}>Enable</button>
          : <button type="button" onClick={() => ask('disable')} aria-label={`Disable ${u.username}`}>Disable</button>}
        <button type="button" aria-label={`Reset the password of ${u.username}`} onClick={() => ask('reset')}>Reset password</button>
        <button type="button" aria-label={`Sign out ${u.username} everywhere`} onClick={() => ask('end')}>Sign out everywhere</button>
        <button type="button" className="danger" aria-label={`Delete ${u.username}`} onClick={() => ask('delete')}>Delete</button>
        {note && <p role="status">{note}</p>}
        {enable.error && <p className="error" role="alert">{enable.error.message}</p>}
        {asking && q && (
          <ConfirmDialog title={q.title} confirm={q.confirm} busy={change.isPending} error={change.error}
            onConfirm={() => change.mutate(asking, { onSuccess: () => setAsking(undefined) })} onClose={() => setAsking(undefined)}>
            <p>{q.text}</p>
          </ConfirmDialog>
        )}
      </td>
    </tr>
  );
}
