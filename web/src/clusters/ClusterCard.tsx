import { memo } from 'react';
import { Link } from 'react-router';
import type { Cluster } from '../api/client';
import { NodeList } from './NodeList';
import { HealthBadge, StatusBadge } from './StatusBadge';
import { sourceLabel } from './labels';
import { useCluster, useHealth } from './queries';

type Props = {
  cluster: Cluster;
  /** Fetch the health badge (a request per card: small lists only). */
  withHealth: boolean;
  onDisconnect: (c: Cluster) => void;
  onTeardown: (c: Cluster) => void;
};

function SelfNodes({ id }: { id: string }) {
  const q = useCluster(id, false);
  if (q.data?.nodesError) return <p className="muted">{q.data.nodesError}</p>;
  if (!q.data?.nodes?.length) return null;
  return <NodeList nodes={q.data.nodes} />;
}

function Health({ id }: { id: string }) {
  const q = useHealth(id, true);
  return q.data?.score !== undefined ? <HealthBadge score={q.data.score} badge={q.data.badge} /> : null;
}

export const ClusterCard = memo(function ClusterCard({ cluster: c, withHealth, onDisconnect, onTeardown }: Props) {
  const live = c.badge === 'green';
  // Disconnect and Tear down where the server's actions offer them (admin
  // on the cluster's team; tear down for a cluster a plugin made and can
  // destroy), disabled with the reason where not allowed now.
  const a = c.actions;
  return (
    <article className="card cluster-card" aria-labelledby={`cluster-${c.id}`} data-testid="cluster-card">
      <header className="card-head">
        <h3 id={`cluster-${c.id}`}><Link to={`/clusters/${c.id}`}>{c.name}</Link></h3>
        <div className="badges">
          <StatusBadge status={c.status} badge={c.badge} />
          {live && withHealth && <Health id={c.id!} />}
          {c.is_host && <span className="badge gray">Host</span>}
        </div>
      </header>
      <dl className="facts">
        <div><dt>Team</dt><dd data-testid="cluster-team">{c.team}</dd></div>
        <div><dt>Nodes</dt><dd>{c.ready_node_count}/{c.node_count} ready</dd></div>
        <div><dt>Provider</dt><dd>{c.provider || '—'}</dd></div>
        <div><dt>Region</dt><dd>{c.region || '—'}</dd></div>
        <div><dt>Kubernetes</dt><dd>{c.kubernetes_version || '—'}</dd></div>
        <div><dt>Source</dt><dd>{sourceLabel(c.source)}</dd></div>
      </dl>
      {c.message && <p className="message" data-testid="cluster-message">{c.message}</p>}
      {c.source === 'self_registered' && <SelfNodes id={c.id!} />}
      {a && (a.disconnect.offered || a.teardown.offered) && (
        <footer className="card-actions">
          {a.disconnect.offered && (
            <button type="button" disabled={!a.disconnect.allowed} title={a.disconnect.reason}
              onClick={() => onDisconnect(c)}>Disconnect</button>
          )}
          {a.teardown.offered && (
            <button type="button" className="danger" disabled={!a.teardown.allowed} title={a.teardown.reason}
              onClick={() => onTeardown(c)}>Tear down</button>
          )}
        </footer>
      )}
    </article>
  );
});
