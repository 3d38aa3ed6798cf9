import { useState, type FormEvent } from 'react';
import { api, ApiError, type TeamRole } from '../api/client';
import { memberRequestRoleValues } from '../api/schema';
import { useUsers } from '../users/queries';
import { Field } from '../ui/Field';
import { Empty, ErrorState, Loading } from '../ui/states';
import { MemberRow } from './MemberRow';
import { addableUsers, roleHelp } from './members';
import { useMembers, useTeamChange } from './queries';

/** Adds a user (one not yet a member) to the team with a role. */
function AddMember({ team, memberIds }: { team: string; memberIds: string[] }) {
  const users = useUsers();
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState<TeamRole>('viewer');
  const add = useTeamChange(() => api.setMember(team, userId, role));
  const fields = add.error instanceof ApiError ? add.error.fieldErrors() : {};
  const offered = addableUsers(users.data?.items ?? [], memberIds.map((user_id) => ({ user_id })));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(undefined, { onSuccess: () => setUserId('') });
  };
  const empty = users.isPending ? 'Loading users…' : offered.length ? 'Choose a user' : 'Every user is a member already';
  return (
    <form className="add-member" onSubmit={submit} noValidate aria-labelledby={`add-member-${team}`}>
      <h3 id={`add-member-${team}`}>Add a member</h3>
      <div className="row">
        <Field label="User" required error={users.error?.message}>
          {(p) => (
            <select {...p} value={userId} onChange={(e) => setUserId(e.target.value)}>
              <option value="">{empty}</option>
              {offered.map((u) => <option key={u.id} value={u.id}>{u.username}{u.disabled ? ' (disabled)' : ''}</option>)}
            </select>
          )}
        </Field>
        <Field label="Team role" required error={fields.role} help={roleHelp}>
          {(p) => (
            <select {...p} value={role} onChange={(e) => setRole(e.target.value as TeamRole)}>
              {memberRequestRoleValues.map((r) => <option key={r} value={r}>{r}</option>)}
            </select>
          )}
        </Field>
      </div>
      {add.error && !fields.role && <p className="error" role="alert">{add.error.message}</p>}
      <button type="submit" disabled={!userId || add.isPending}>Add member</button>
    </form>
  );
}

/** A team's members with their roles, and adding one. */
export function TeamMembers({ team }: { team: string }) {
  const q = useMembers(team);
  return (
    <section className="panel" aria-labelledby={`members-${team}`} data-testid="team-members">
      <h2 id={`members-${team}`}>Members of {team}</h2>
      {q.isPending ? <Loading what="members" />
        : q.isError ? <ErrorState title="The members could not be loaded." error={q.error} onRetry={() => q.refetch()} />
        : q.data.items.length === 0 ? <Empty>No members yet. Platform admins administer every team; global viewers read every team.</Empty>
        : (
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">Members of {team}</caption>
              <thead><tr><th scope="col">User</th><th scope="col">Role</th><th scope="col">Given by</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>{q.data.items.map((m) => <MemberRow key={m.user_id} m={m} />)}</tbody>
            </table>
          </div>
        )}
      <AddMember team={team} memberIds={q.data?.items.map((m) => m.user_id) ?? []} />
    </section>
  );
}
