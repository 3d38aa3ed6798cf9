import { useState } from 'react';
import type { InputField } from '../api/client';
import { KindForm } from '../credentials/KindForm';
import { StoredCredentialSelect } from '../credentials/StoredCredentialSelect';
import { useCredentialKinds } from '../credentials/queries';
import { acceptedKinds } from '../forms/fields';

type Props = { field: InputField; value: string; error?: string; onChange: (id: string) => void; team: string };

/**
 * A credential field of a provider's form: a stored credential of a kind
 * the field accepts, or a new one of such a kind added inline; both of the
 * cluster's team.
 */
export function CredentialPicker({ field, value, error, onChange, team }: Props) {
  const [adding, setAdding] = useState(false);
  const { kinds } = useCredentialKinds();
  const offered = acceptedKinds(field, kinds);
  return (
    <div className="credential-picker">
      <StoredCredentialSelect team={team} field={field} value={value} error={error} onChange={onChange} />
      {!adding ? (
        offered.length > 0 && <button type="button" onClick={() => setAdding(true)}>Add a credential</button>
      ) : (
        <KindForm nested team={team} kinds={offered} heading={<legend>New credential</legend>} onCancel={() => setAdding(false)}
          onSaved={(c) => { onChange(c.id); setAdding(false); }} />
      )}
    </div>
  );
}
