import { useState } from 'react';
import { api, type Member, type TeamRole } from '../api/client';
import { memberRequestRoleValues } from '../api/schema';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { sourceLabel } from './members';
import { useTeamChange } from './queries';

/** One member of a team: their role, changed in place, and Remove (asked first). */
export function MemberRow({ m }: { m: Member }) {
  const [asking, setAsking] = useState(false);
  const setRole = useTeamChange((role: TeamRole) => api.setMember(m.team, m.user_id, role));
  const remove = useTeamChange(() => api.removeMember(m.team, m.user_id));
  return (
    <tr>
      <td>{m.username}</td>
      <td>
        <select aria-label={`Role of ${m.username}`} value={m.role} disabled={setRole.isPending}
          onChange={(e) => setRole.mutate(e.target.value as TeamRole)}>
          {memberRequestRoleValues.map((r) => <option key={r} value={r}>{r}</option>)}
        </select>
        {setRole.error && <p className="error" role="alert">{setRole.error.message}</p>}
      </td>
      <td>{sourceLabel(m.source)}</td>
      <td className="actions">
        <button type="button" className="danger" aria-label={`Remove ${m.username} from ${m.team}`} onClick={() => { remove.reset(); setAsking(true); }}>Remove</button>
        {asking && (
          <ConfirmDialog title={`Remove ${m.username} from ${m.team}?`} confirm="Remove member" busy={remove.isPending} error={remove.error}
            onConfirm={() => remove.mutate(undefined, { onSuccess: () => setAsking(false) })} onClose={() => setAsking(false)}>
            <p>{m.username} loses the {m.role} role on {m.team}&apos;s clusters and credentials at once, open sessions included.</p>
            {m.source === 'oidc' && <p>Their identity provider groups give it back at their next sign-in unless the groups change.</p>}
          </ConfirmDialog>
        )}
      </td>
    </tr>
  );
}
