import type { InputField } from '../api/client';
import { credentialsFor, helpOf, labelOf } from '../forms/fields';
import { Field } from '../ui/Field';
import { useCredentials } from './queries';

type Props = { field: InputField; value: string; error?: string; onChange: (id: string) => void };

/** Picks a stored credential of a kind the field accepts. */
export function StoredCredentialSelect({ field: f, value, error, onChange }: Props) {
  const q = useCredentials();
  const items = credentialsFor(f, q.data?.items ?? []);
  const empty = q.isPending ? 'Loading credentials…' : items.length ? 'Choose a stored credential' : 'No stored credentials of this kind: add one';
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
