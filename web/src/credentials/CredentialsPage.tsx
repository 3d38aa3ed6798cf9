import { useState } from 'react';
import type { Credential } from '../api/client';
import { useTeamsToMakeIn } from '../teams/queries';
import { Empty, ErrorState, Loading } from '../ui/states';
import { DeleteCredentialDialog } from './DeleteCredentialDialog';
import { KindForm } from './KindForm';
import { useCredentialKinds, useCredentials } from './queries';

/** Adds a credential of any kind a loaded plugin declares. */
function AddCredential() {
  const q = useCredentialKinds();
  if (q.isPending) return <Loading what="credential kinds" />;
  if (q.isError) return <ErrorState title="The credential kinds could not be loaded." error={q.error} onRetry={() => q.refetch()} />;
  return (
    <KindForm kinds={q.kinds} heading={<>
      <h2 id="add-cred-title">Add a credential</h2>
      <p className="muted">Stored encrypted; after saving only its label and last 4 characters are shown.</p>
    </>} />
  );
}

/** One stored credential; Delete where the caller administers its team. */
function CredentialRow({ c, mayDelete }: { c: Credential; mayDelete: boolean }) {
  const [asking, setAsking] = useState(false);
  return (
    <tr>
      <td>{c.label}</td>
      <td>{c.team}</td>
      <td>{c.kind}</td>
      <td><code>…{c.last4}</code></td>
      <td>
        {mayDelete && <button type="button" className="danger" aria-label={`Delete ${c.label}`} onClick={() => setAsking(true)}>Delete</button>}
        {asking && <DeleteCredentialDialog c={c} onClose={() => setAsking(false)} />}
      </td>
    </tr>
  );
}

export function CredentialsPage() {
  const q = useCredentials();
  const { teams } = useTeamsToMakeIn();
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
                <thead><tr><th scope="col">Label</th><th scope="col">Team</th><th scope="col">Kind</th><th scope="col">Last 4</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
                <tbody>{q.data.items.map((c) => <CredentialRow key={c.id} c={c} mayDelete={teams.includes(c.team)} />)}</tbody>
              </table>
            </div>
          )}
      </section>
      <AddCredential />
    </>
  );
}
