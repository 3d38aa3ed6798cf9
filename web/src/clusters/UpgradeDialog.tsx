import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Cluster } from '../api/client';
import { Dialog } from '../ui/Dialog';
import { clusterKeys } from './queries';
import { changeError } from './dayTwo';

/**
 * Upgrade: the desired Kubernetes version, sent as PATCH kubernetesVersion,
 * picked from the versions the plugin's published upgrade paths offer from
 * the cluster's version (the server checks the same paths).
 */
export function UpgradeDialog({ cluster, targets, onClose }: { cluster: Cluster; targets: string[]; onClose: () => void }) {
  const qc = useQueryClient();
  const [version, setVersion] = useState(targets[0] ?? '');
  const m = useMutation({
    mutationFn: () => api.update(cluster.id, { kubernetesVersion: version }),
    onSuccess: () => { qc.invalidateQueries({ queryKey: clusterKeys.all }); onClose(); },
  });
  const error = changeError(m.error, 'kubernetesVersion');
  const current = cluster.kubernetes_version || 'an unknown version';
  return (
    <Dialog title={`Upgrade ${cluster.name}`} onClose={onClose}>
      <form className="dialog-body" onSubmit={(e) => { e.preventDefault(); if (version) m.mutate(); }}>
        <p>The cluster runs Kubernetes {current}. The control plane moves first, then the nodes; an upgrade cannot be undone.</p>
        {targets.length === 0 ? (
          <p role="status" data-testid="no-upgrade">Its provider plugin offers no upgrade from {current}.</p>
        ) : (
          <>
            <label htmlFor="upgrade-version">Kubernetes version</label>
            <select id="upgrade-version" value={version} onChange={(e) => setVersion(e.target.value)}
              aria-invalid={error ? true : undefined} aria-describedby={error ? 'upgrade-error' : undefined}>
              {targets.map((v) => <option key={v} value={v}>{v}</option>)}
            </select>
          </>
        )}
        {error && <p id="upgrade-error" className="error" role="alert">{error}</p>}
        <footer className="dialog-foot">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="danger" disabled={!version || m.isPending}>
            {m.isPending ? 'Upgrading…' : 'Upgrade'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
