import { useState, type FormEvent } from 'react';
import { api, ApiError, type UserCreateRequest } from '../api/client';
import { userCreateRequestRoleValues } from '../api/schema';
import { Field } from '../ui/Field';
import { useUserChange } from './queries';

/** Creates a user with a generated password, shown once by the page. */
export function AddUser({ onPassword }: { onPassword: (username: string, password: string) => void }) {
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<UserCreateRequest['role']>('member');
  const create = useUserChange((r: UserCreateRequest) => api.createUser(r));
  const fields = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ username, email, role }, {
      onSuccess: (r) => {
        onPassword(r.user.username, r.generatedPassword ?? '');
        setUsername('');
        setEmail('');
      },
    });
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="add-user-title">
      <h2 id="add-user-title">Add a user</h2>
      <p className="muted">A password is generated and shown once; the user chooses a new one at the first sign-in.</p>
      <Field label="Username" required error={fields.username}>
        {(p) => <input {...p} value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Email" required error={fields.email}>
        {(p) => <input {...p} type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Role" required error={fields.role}
        help="member: only what their teams give (add them to a team on the Teams page); viewer: reads every team; platform-admin: everything">
        {(p) => (
          <select {...p} value={role} onChange={(e) => setRole(e.target.value as UserCreateRequest['role'])}>
            {userCreateRequestRoleValues.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        )}
      </Field>
      {create.error && !Object.keys(fields).length && <p className="error" role="alert">{create.error.message}</p>}
      <button type="submit" disabled={create.isPending}>Add user</button>
    </form>
  );
}
