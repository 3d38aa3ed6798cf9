import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Cluster } from '../api/client';
import { changeError } from './dayTwo';
import { Dialog } from '../ui/Dialog';
import { clusterKeys } from './queries';

/**
 * Scale: the desired node count, sent as PATCH nodeCount; the plugin moves
 * the cluster there. min and max (0: none) are the bounds the server's
 * scale action gives, the ones the PATCH checks.
 */
export function ScaleDialog({ cluster, min, max, onClose }: { cluster: Cluster; min: number; max?: number; onClose: () => void }) {
  const qc = useQueryClient();
  const [count, setCount] = useState(String(cluster.node_count || min));
  const n = Number(count);
  const valid = Number.isInteger(n) && n >= min && (!max || n <= max);
  const m = useMutation({
    mutationFn: () => api.update(cluster.id, { nodeCount: n }),
    onSuccess: () => { qc.invalidateQueries({ queryKey: clusterKeys.all }); onClose(); },
  });
  const error = changeError(m.error, 'nodeCount');
  return (
    <Dialog title={`Scale ${cluster.name}`} onClose={onClose}>
      <form className="dialog-body" onSubmit={(e) => { e.preventDefault(); if (valid) m.mutate(); }}>
        <p>The cluster has {cluster.node_count} nodes. Removing nodes moves their workloads to the nodes that stay.</p>
        <label htmlFor="scale-count">Nodes ({max ? `${min} to ${max}` : `at least ${min}`})</label>
        <input id="scale-count" type="number" min={min} max={max || undefined} step={1} value={count} onChange={(e) => setCount(e.target.value)}
          aria-invalid={error ? true : undefined} aria-describedby={error ? 'scale-error' : undefined} />
        {error && <p id="scale-error" className="error" role="alert">{error}</p>}
        <footer className="dialog-foot">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" disabled={!valid || n === cluster.node_count || m.isPending}>
            {m.isPending ? 'Scaling…' : `Scale to ${valid ? n : '…'} nodes`}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
