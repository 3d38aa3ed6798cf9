import type { InputField } from '../api/client';
import { credentialsFor, helpOf, labelOf } from '../forms/fields';
import { Field } from '../ui/Field';
import { useCredentials } from './queries';

type Props = {
  field: InputField;
  value: string;
  error?: string;
  onChange: (id: string) => void;
  /** Only this team's credentials, when set. */
  team?: string;
};

/** Picks a stored credential of a kind the field accepts (of the team, when one is given). */
export function StoredCredentialSelect({ field: f, value, error, onChange, team }: Props) {
  const q = useCredentials();
  const items = credentialsFor(f, q.data?.items ?? [], team);
  const empty = q.isPending ? 'Loading credentials…' : items.length ? 'Choose a stored credential' : `No stored credentials of this kind${team ? ` in team ${team}` : ''}: add one`;
  return (
    <Field label={labelOf(f)} error={error ?? (q.isError ? q.error.message : undefined)} help={helpOf(f)} description={f.description} required={f.required}>
      {(p) => (
        <select {...p} name={f.name} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{empty}</option>
          {items.map((c) => <option key={c.id} value={c.id}>{c.label} ({c.kind}, …{c.last4})</option>)}
        </select>
      )}
    </Field>
  );
}
