import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Cluster } from '../api/client';
import { clusterKeys } from './queries';

/**
 * Retry of a Failed provisioned cluster: POST /clusters/{id}/retry. On 202
 * the cluster is read again, so its badge moves on (Pending, then the
 * step that failed); a refusal shows the server's reason.
 */
export function RetryAction({ cluster }: { cluster: Cluster }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => api.retry(cluster.id),
    onSuccess: () => qc.invalidateQueries({ queryKey: clusterKeys.all }),
  });
  return (
    <div data-testid="retry">
      <p id="retry-help">
        <strong>Failed.</strong> Once what failed is fixed, Retry asks the provider plugin to start the step that
        failed again, for the same cluster: what it already made is kept and built on (a plugin that cannot
        resume starts the cluster over).
      </p>
      {m.error && <p className="error" role="alert">{m.error.message}</p>}
      <div className="card-actions">
        <button type="button" aria-describedby="retry-help" disabled={m.isPending} onClick={() => m.mutate()}>
          {m.isPending ? 'Retrying…' : 'Retry'}
        </button>
      </div>
    </div>
  );
}
