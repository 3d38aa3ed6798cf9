import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Cluster } from '../api/client';
import { Dialog } from '../ui/Dialog';
import { clusterKeys } from './queries';
import { changeError } from './dayTwo';

/**
 * Upgrade: the desired Kubernetes version, sent as PATCH kubernetesVersion.
 * The providers list gives no upgrade paths, so the version is typed and
 * the server checks it against the plugin's (one minor at a time, never down).
 */
export function UpgradeDialog({ cluster, onClose }: { cluster: Cluster; onClose: () => void }) {
  const qc = useQueryClient();
  const [version, setVersion] = useState('');
  const m = useMutation({
    mutationFn: () => api.update(cluster.id, { kubernetesVersion: version.trim() }),
    onSuccess: () => { qc.invalidateQueries({ queryKey: clusterKeys.all }); onClose(); },
  });
  const error = changeError(m.error, 'kubernetesVersion');
  return (
    <Dialog title={`Upgrade ${cluster.name}`} onClose={onClose}>
      <form className="dialog-body" onSubmit={(e) => { e.preventDefault(); if (version.trim()) m.mutate(); }}>
        <p>The cluster runs Kubernetes {cluster.kubernetes_version || 'of an unknown version'}. The control plane moves first, then the nodes; an upgrade cannot be undone.</p>
        <label htmlFor="upgrade-version">Kubernetes version</label>
        <input id="upgrade-version" value={version} onChange={(e) => setVersion(e.target.value)} autoComplete="off"
          placeholder="the next minor, e.g. 1.31" aria-invalid={error ? true : undefined} aria-describedby={error ? 'upgrade-error' : undefined} />
        {error && <p id="upgrade-error" className="error" role="alert">{error}</p>}
        <footer className="dialog-foot">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="danger" disabled={!version.trim() || m.isPending}>
            {m.isPending ? 'Upgrading…' : 'Upgrade'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
