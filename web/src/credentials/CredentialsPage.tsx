import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, type Credential } from '../api/client';
import { Field } from '../ui/Field';
import { Empty, ErrorState, Loading } from '../ui/states';
import { credentialKeys } from './queries';

/** The fields each credential kind has, as the form shows them. */
const kindFields: Record<string, ('accessKeyId' | 'secretAccessKey' | 'roleArn' | 'externalId' | 'sourceCredentialRef')[]> = {
  access_key: ['accessKeyId', 'secretAccessKey'],
  assume_role: ['roleArn', 'externalId', 'sourceCredentialRef'],
};

function AddCredentialForm() {
  const qc = useQueryClient();
  const [kind, setKind] = useState('access_key');
  const [v, setV] = useState({ label: '', accessKeyId: '', secretAccessKey: '', roleArn: '', externalId: '', sourceCredentialRef: '' });
  const m = useMutation({
    // Only the chosen kind's fields: the server refuses a field another
    // kind declares, which the form would not even show.
    mutationFn: () => api.addCredential({ kind, label: v.label,
      fields: Object.fromEntries(kindFields[kind].filter((k) => v[k] !== '').map((k) => [k, v[k]])) }),
    onSuccess: () => {
      qc.invalidateQueries({ queryKey: credentialKeys.all });
      setV({ label: '', accessKeyId: '', secretAccessKey: '', roleArn: '', externalId: '', sourceCredentialRef: '' });
    },
  });
  const errors = m.error instanceof ApiError ? m.error.fieldErrors() : {};
  const input = (key: keyof typeof v, label: string, type = 'text', required = true) => (
    <Field label={label} error={errors[key]} required={required}>
      {(p) => <input {...p} name={key} type={type} autoComplete="off" value={v[key]} onChange={(e) => setV({ ...v, [key]: e.target.value })} />}
    </Field>
  );
  function submit(e: FormEvent) {
    e.preventDefault();
    m.mutate();
  }
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="add-cred-title">
      <h2 id="add-cred-title">Add a credential</h2>
      <p className="muted">Stored encrypted; after saving only its label and last 4 characters are shown.</p>
      {input('label', 'Label')}
      <Field label="Kind" error={errors.kind} required>
        {(p) => (
          <select {...p} name="kind" value={kind} onChange={(e) => setKind(e.target.value)}>
            <option value="access_key">Access key</option>
            <option value="assume_role">Assume role</option>
          </select>
        )}
      </Field>
      {kind === 'access_key' ? (
        <>
          {input('accessKeyId', 'Access key ID')}
          {input('secretAccessKey', 'Secret access key', 'password')}
        </>
      ) : (
        <>
          {input('roleArn', 'Role ARN')}
          {input('externalId', 'External ID', 'text', false)}
          {input('sourceCredentialRef', 'Source credential ID', 'text', false)}
        </>
      )}
      {m.error && <p className="error" role="alert">{m.error.message}</p>}
      {m.isSuccess && <p className="notice" role="status">Saved.</p>}
      <button type="submit" className="primary" disabled={m.isPending}>{m.isPending ? 'Saving…' : 'Save credential'}</button>
    </form>
  );
}

function CredentialRow({ c }: { c: Credential }) {
  const qc = useQueryClient();
  const del = useMutation({
    mutationFn: () => api.deleteCredential(c.id),
    onSuccess: () => qc.invalidateQueries({ queryKey: credentialKeys.all }),
  });
  return (
    <tr>
      <td>{c.label}</td>
      <td>{c.kind}</td>
      <td><code>…{c.last4}</code></td>
      <td>
        <button type="button" className="danger" aria-label={`Delete ${c.label}`} disabled={del.isPending} onClick={() => del.mutate()}>Delete</button>
        {del.error && <p className="error" role="alert">{del.error.message}</p>}
      </td>
    </tr>
  );
}

export function CredentialsPage() {
  const q = useQuery({ queryKey: credentialKeys.all, queryFn: api.credentials });
  return (
    <>
      <div className="page-head"><h1>Cloud credentials</h1></div>
      <section className="panel" aria-labelledby="stored-title">
        <h2 id="stored-title">Stored</h2>
        {q.isPending ? <Loading what="credentials" />
          : q.isError ? <ErrorState title="The credentials could not be loaded." error={q.error} onRetry={() => q.refetch()} />
          : q.data.items.length === 0 ? <Empty>No credentials stored yet.</Empty>
          : (
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Stored cloud credentials</caption>
                <thead><tr><th scope="col">Label</th><th scope="col">Kind</th><th scope="col">Last 4</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
                <tbody>{q.data.items.map((c) => <CredentialRow key={c.id} c={c} />)}</tbody>
              </table>
            </div>
          )}
      </section>
      <AddCredentialForm />
    </>
  );
}
