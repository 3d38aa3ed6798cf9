import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { Field } from '../ui/Field';
import { useTeamChange } from './queries';

/** Creates a team; the server checks its name. */
export function AddTeam({ onCreated }: { onCreated: (name: string) => void }) {
  const [name, setName] = useState('');
  const create = useTeamChange((n: string) => api.createTeam(n));
  const fields = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(name, { onSuccess: (t) => { setName(''); onCreated(t.name); } });
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="add-team-title">
      <h2 id="add-team-title">Create a team</h2>
      <p className="muted">A team owns clusters and credentials; its members get a role on them.</p>
      <Field label="Team name" required error={fields.name} help="Lowercase letters, digits and '-', e.g. payments-prod">
        {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />}
      </Field>
      {create.error && !fields.name && <p className="error" role="alert">{create.error.message}</p>}
      <button type="submit" className="primary" disabled={create.isPending}>Create team</button>
    </form>
  );
}
