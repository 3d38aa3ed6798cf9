import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import { Field } from '../ui/Field';
import { credentialKeys } from '../credentials/queries';

/** Picks a stored cloud credential, or adds one inline. */
export function CredentialPicker({ value, error, onChange }: { value: string; error?: string; onChange: (id: string) => void }) {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: credentialKeys.all, queryFn: api.credentials });
  const [adding, setAdding] = useState(false);
  const [label, setLabel] = useState('');
  const [accessKeyId, setAccessKeyId] = useState('');
  const [secretAccessKey, setSecret] = useState('');
  const add = useMutation({
    mutationFn: () => api.addCredential({ label, kind: 'access_key', fields: { accessKeyId, secretAccessKey } }),
    onSuccess: (c) => {
      qc.invalidateQueries({ queryKey: credentialKeys.all });
      onChange(c.id);
      setAdding(false);
      setLabel(''); setAccessKeyId(''); setSecret('');
    },
  });
  const addErrors = add.error instanceof ApiError ? add.error.fieldErrors() : {};
  const items = q.data?.items ?? [];
  return (
    <div className="credential-picker">
      <Field label="Cloud credential" error={error ?? (q.isError ? q.error.message : undefined)} required>
        {(p) => (
          <select {...p} name="credentialRef" value={value} onChange={(e) => onChange(e.target.value)}>
            <option value="">{q.isPending ? 'Loading credentials…' : items.length ? 'Choose a stored credential' : 'No stored credentials: add one'}</option>
            {items.map((c) => <option key={c.id} value={c.id}>{c.label} ({c.kind}, …{c.last4})</option>)}
          </select>
        )}
      </Field>
      {!adding ? (
        <button type="button" onClick={() => setAdding(true)}>Add a credential</button>
      ) : (
        <fieldset className="inline-add">
          <legend>New access key</legend>
          <Field label="Label" error={addErrors.label} required>
            {(p) => <input {...p} value={label} onChange={(e) => setLabel(e.target.value)} />}
          </Field>
          <Field label="Access key ID" error={addErrors.accessKeyId} required>
            {(p) => <input {...p} value={accessKeyId} autoComplete="off" onChange={(e) => setAccessKeyId(e.target.value)} />}
          </Field>
          <Field label="Secret access key" error={addErrors.secretAccessKey} required>
            {(p) => <input {...p} type="password" autoComplete="off" value={secretAccessKey} onChange={(e) => setSecret(e.target.value)} />}
          </Field>
          {add.error && <p className="error" role="alert">{add.error.message}</p>}
          <div className="row-actions">
            <button type="button" onClick={() => setAdding(false)}>Cancel</button>
            <button type="button" className="primary" disabled={add.isPending} onClick={() => add.mutate()}>Save credential</button>
          </div>
        </fieldset>
      )}
    </div>
  );
}
