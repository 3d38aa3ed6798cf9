import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Credential } from '../api/client';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Loading } from '../ui/states';
import { credentialKeys } from './queries';
import { clustersUsing } from './usage';

/**
 * Asks before deleting a stored credential, naming the clusters that use
 * it (from the cluster list). The server also refuses while a role to
 * assume is made from it, and says so; that answer is shown here.
 */
export function DeleteCredentialDialog({ c, onClose }: { c: Credential; onClose: () => void }) {
  const qc = useQueryClient();
  const clusters = useQuery({ queryKey: ['clusters', 'all'], queryFn: () => api.clusters() });
  const del = useMutation({
    mutationFn: () => api.deleteCredential(c.id),
    onSuccess: () => { qc.invalidateQueries({ queryKey: credentialKeys.all }); onClose(); },
  });
  const users = clusters.data ? clustersUsing(clusters.data.items, c.id) : [];
  return (
    <ConfirmDialog title={`Delete ${c.label}?`} confirm="Delete credential" busy={del.isPending || clusters.isPending}
      error={del.error ?? clusters.error} blocked={users.length > 0} onConfirm={() => del.mutate()} onClose={onClose}>
      {clusters.isPending ? <Loading what="the clusters that use it" />
        : users.length > 0 ? (
          <div data-testid="credential-users">
            <p>It cannot be deleted while these clusters use it:</p>
            <ul>{users.map((u) => <li key={u}>{u}</li>)}</ul>
            <p>Tear down or disconnect them first.</p>
          </div>
        ) : (
          <p data-testid="credential-users">No cluster uses it. The stored secret is destroyed; this cannot be undone.</p>
        )}
    </ConfirmDialog>
  );
}
