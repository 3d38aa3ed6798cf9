import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, type Credential, type Provider } from '../api/client';
import { DeclaredFields } from '../forms/DeclaredFields';
import { defaultsOf, valuesFor, withoutCredentials } from '../forms/fields';
import { TeamPicker, useChosenTeam } from '../teams/TeamPicker';
import { Field } from '../ui/Field';
import { credentialKeys } from './queries';
import { StoredCredentialSelect } from './StoredCredentialSelect';

type Kind = Provider['credentialKinds'][number];

type Props = {
  /** The kinds offered (at least one), as the plugins declare them. */
  kinds: Kind[];
  onSaved?: (c: Credential) => void;
  onCancel?: () => void;
  /** Inside another form (the wizard) it is a fieldset with a plain button; alone, a form of its own. */
  nested?: boolean;
  heading: ReactNode;
  /** The team the credential is made in (the wizard's cluster's); unset, the form offers a team picker. */
  team?: string;
};

/** Adds a stored credential of any declared kind, with the fields and help that kind declares. */
export function KindForm({ kinds, onSaved, onCancel, nested, heading, team: fixedTeam }: Props) {
  const qc = useQueryClient();
  const [kindName, setKindName] = useState(kinds[0]?.name ?? '');
  const kind = kinds.find((k) => k.name === kindName) ?? kinds[0];
  const [label, setLabel] = useState('');
  const [picked, setPicked] = useState('');
  const chosen = useChosenTeam(picked);
  const team = fixedTeam ?? chosen;
  const [values, setValues] = useState<Record<string, string>>(() => defaultsOf(kind?.fields ?? []));
  const m = useMutation({
    // Only the chosen kind's fields: the server refuses a field the kind does not declare.
    mutationFn: () => api.addCredential({ kind: kind.name, team, label, fields: valuesFor(kind.fields, values) }),
    onSuccess: (c) => {
      qc.invalidateQueries({ queryKey: credentialKeys.all });
      setLabel('');
      setValues(defaultsOf(kind.fields));
      onSaved?.(c);
    },
  });
  if (!kind) return <p className="muted">No loaded provider plugin declares a credential kind.</p>;
  const errors = m.error instanceof ApiError ? m.error.fieldErrors() : {};
  const choose = (name: string) => {
    setKindName(name);
    setValues(defaultsOf(kinds.find((k) => k.name === name)?.fields ?? []));
    m.reset();
  };
  const body = (
    <>
      {heading}
      {fixedTeam === undefined && <TeamPicker value={picked} error={errors.team} what="credential"
        onChange={(t) => { setPicked(t); setValues((v) => withoutCredentials(kind.fields, v)); }} />}
      <Field label="Kind" error={errors.kind} help={kind.help} required>
        {(p) => (
          <select {...p} name="kind" value={kind.name} onChange={(e) => choose(e.target.value)}>
            {kinds.map((k) => <option key={k.name} value={k.name}>{k.displayName || k.name}</option>)}
          </select>
        )}
      </Field>
      <Field label="Label" error={errors.label} help="A name to tell it apart, e.g. prod-deployer" required>
        {(p) => <input {...p} name="label" autoComplete="off" value={label} onChange={(e) => setLabel(e.target.value)} />}
      </Field>
      <DeclaredFields key={kind.name} fields={kind.fields} values={values} errors={errors} onChange={setValues}
        credential={(f, v, err, set) => <StoredCredentialSelect team={team} field={f} value={v} error={err} onChange={set} />} />
      {m.error && <p className="error" role="alert">{m.error.message}</p>}
      {m.isSuccess && !onSaved && <p className="notice" role="status">Saved.</p>}
      <div className="row-actions">
        {onCancel && <button type="button" onClick={onCancel}>Cancel</button>}
        <button type={nested ? 'button' : 'submit'} className="primary" disabled={m.isPending} onClick={nested ? () => m.mutate() : undefined}>
          {m.isPending ? 'Saving…' : 'Save credential'}
        </button>
      </div>
    </>
  );
  if (nested) return <fieldset className="inline-add">{body}</fieldset>;
  const submit = (e: FormEvent) => { e.preventDefault(); m.mutate(); };
  return <form className="panel" onSubmit={submit} noValidate aria-labelledby="add-cred-title">{body}</form>;
}
