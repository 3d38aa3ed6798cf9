import { useMutation } from '@tanstack/react-query';
import { api, type Cluster } from '../api/client';
import { kubeconfigDownload, saveFile } from './kubeconfigFile';

/**
 * "Download kubeconfig": GET /clusters/{id}/kubeconfig for the signed-in
 * user, saved as `<cluster>.kubeconfig`. Offered to everyone who sees the
 * cluster: the kubeconfig reaches it through KubeOpera's proxy as the
 * user, with their rights there, and a token that expires in hours. The
 * server decides; a refusal shows its reason.
 */
export function DownloadKubeconfig({ cluster, save = saveFile }: { cluster: Pick<Cluster, 'id' | 'name'>; save?: typeof saveFile }) {
  const m = useMutation({
    mutationFn: () => api.kubeconfig(cluster.id),
    onSuccess: (k) => {
      const { fileName, blob } = kubeconfigDownload(k, cluster.name);
      save(blob, fileName);
    },
  });
  const expires = m.data?.expiresAt ? new Date(m.data.expiresAt).toLocaleString() : '';
  return (
    <div data-testid="download-kubeconfig">
      <p id="kubeconfig-help">
        A kubeconfig of your own: it reaches the cluster through KubeOpera as you, with your role's rights there, and its
        token expires within hours. For one that renews itself, run <code>kubeopera clusters kubeconfig {cluster.name} --exec</code>.
      </p>
      {m.error && <p className="error" role="alert">{m.error.message}</p>}
      {m.isSuccess && (
        <p className="notice" role="status">
          Saved {kubeconfigDownload(m.data, cluster.name).fileName}{expires && `; its token expires ${expires}`}.
        </p>
      )}
      <div className="card-actions">
        <button type="button" aria-describedby="kubeconfig-help" disabled={m.isPending} onClick={() => m.mutate()}>
          {m.isPending ? 'Downloading…' : 'Download kubeconfig'}
        </button>
      </div>
    </div>
  );
}
