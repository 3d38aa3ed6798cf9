import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Cluster } from '../api/client';
import { Dialog } from '../ui/Dialog';
import { clusterKeys, useCluster } from './queries';

/**
 * Disconnect, saying plainly what is removed and what keeps running, and
 * repeating the API's own notice of what a disconnect would do now (for a
 * provisioned cluster: its infrastructure keeps running and costing money).
 * Where the plugin can destroy the cluster, Tear down is offered instead.
 */
export function DisconnectDialog({ cluster, onClose, onTeardown }: { cluster: Cluster; onClose: () => void; onTeardown?: () => void }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => api.disconnect(cluster.id),
    onSuccess: () => { qc.invalidateQueries({ queryKey: clusterKeys.all }); onClose(); },
  });
  const notice = useCluster(cluster.id, false).data?.disconnectNotice;
  const self = cluster.source === 'self_registered';
  return (
    <Dialog title={`Disconnect ${cluster.name}?`} onClose={onClose}>
      <div className="dialog-body">
        {notice && <p className="notice" role="note" data-testid="disconnect-notice">{notice}</p>}
        {!notice && self && <p>KubeOpera forgets this cluster: its row is removed from the list. Nothing on the cluster is changed.</p>}
        {!self && (
          <>
            <p><strong>Removed:</strong> on the cluster, only the GitRepository and Kustomizations KubeOpera made in flux-system; in KubeOpera, the cluster's HostCluster and the kubeconfig it stored.</p>
            <p><strong>Kept running on the cluster:</strong> Flux's controllers and everything those Kustomizations applied (KubeOpera, its infrastructure, your workloads); the cluster may still be in use outside KubeOpera.</p>
          </>
        )}
        {m.error && <p className="error" role="alert">{m.error.message}</p>}
      </div>
      <footer className="dialog-foot">
        <button type="button" onClick={onClose}>Cancel</button>
        {cluster.actions?.teardown.offered && onTeardown && <button type="button" className="danger" onClick={onTeardown}>Tear down instead</button>}
        <button type="button" className="danger" disabled={m.isPending} onClick={() => m.mutate()}>
          {m.isPending ? 'Disconnecting…' : 'Disconnect'}
        </button>
      </footer>
    </Dialog>
  );
}

/** Teardown of a provisioned cluster: destroys its cloud resources. */
export function TeardownDialog({ cluster, onClose, onDone }: { cluster: Cluster; onClose: () => void; onDone?: () => void }) {
  const qc = useQueryClient();
  const [typed, setTyped] = useState('');
  const m = useMutation({
    mutationFn: () => api.teardown(cluster.id!, typed),
    onSuccess: () => { qc.invalidateQueries({ queryKey: clusterKeys.all }); onClose(); onDone?.(); },
  });
  return (
    <Dialog title={`Tear down ${cluster.name}?`} onClose={onClose}>
      <div className="dialog-body">
        <p><strong>Destroyed:</strong> the infrastructure KubeOpera provisioned for this cluster through its provider plugin (its machines, network and load balancers, or a local cluster's processes and files) and everything running on it. This cannot be undone.</p>
        <p><strong>Not touched:</strong> stored cloud credentials and other clusters.</p>
        <label htmlFor="confirm-name">Type <strong>{cluster.name}</strong> to confirm</label>
        <input id="confirm-name" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
        {m.error && <p className="error" role="alert">{m.error.message}</p>}
      </div>
      <footer className="dialog-foot">
        <button type="button" onClick={onClose}>Cancel</button>
        <button type="button" className="danger" disabled={typed !== cluster.name || m.isPending} onClick={() => m.mutate()}>
          {m.isPending ? 'Tearing down…' : 'Tear down'}
        </button>
      </footer>
    </Dialog>
  );
}
