import { useCallback, useState } from 'react';
import { Link } from 'react-router';
import type { Cluster } from '../api/client';
import { useIsAdmin } from '../auth/session';
import { Empty, ErrorState, Loading } from '../ui/states';
import { ClusterWizard } from '../wizard/ClusterWizard';
import { ClusterCard } from './ClusterCard';
import { DisconnectDialog, TeardownDialog } from './DisconnectDialog';
import { GetStarted } from './GetStarted';
import { useCanTeardown, useClusters } from './queries';

/** Beyond this many cards, health scores are on each cluster's page only. */
const HEALTH_BADGES_UP_TO = 50;

export function ClustersPage() {
  const q = useClusters();
  const admin = useIsAdmin();
  const canTeardown = useCanTeardown();
  const [wizard, setWizard] = useState(false);
  const [disconnecting, setDisconnecting] = useState<Cluster | null>(null);
  const [tearingDown, setTearingDown] = useState<Cluster | null>(null);
  const onDisconnect = useCallback((c: Cluster) => setDisconnecting(c), []);
  const onTeardown = useCallback((c: Cluster) => setTearingDown(c), []);

  let body;
  if (q.isPending) body = <Loading what="clusters" />;
  else if (q.isError) body = <ErrorState title="The clusters could not be loaded." error={q.error} onRetry={() => q.refetch()} />;
  else {
    const items = q.data.items ?? [];
    body = (
      <>
        {!q.data.hostRegistered && <GetStarted admin={admin} onManual={() => setWizard(true)} />}
        {items.length === 0 && q.data.hostRegistered && <Empty>No clusters yet.</Empty>}
        {items.length > 0 && (
          <>
            <p className="muted" aria-live="polite" data-testid="cluster-count">{items.length} {items.length === 1 ? 'cluster' : 'clusters'} · refreshes every few seconds</p>
            <div className="cards">
              {items.map((c) => (
                <ClusterCard key={c.id} cluster={c} admin={admin} canTeardown={canTeardown} withHealth={items.length <= HEALTH_BADGES_UP_TO}
                  onDisconnect={onDisconnect} onTeardown={onTeardown} />
              ))}
            </div>
          </>
        )}
      </>
    );
  }

  return (
    <>
      <div className="page-head">
        <h1>Clusters</h1>
        <div className="actions">
          <Link to="/clusters/multi">Multi-Cluster View</Link>
          {admin && <button type="button" className="primary" onClick={() => setWizard(true)}>New Cluster</button>}
        </div>
      </div>
      {body}
      {wizard && <ClusterWizard onClose={() => setWizard(false)} />}
      {disconnecting && <DisconnectDialog cluster={disconnecting} onClose={() => setDisconnecting(null)} />}
      {tearingDown && <TeardownDialog cluster={tearingDown} onClose={() => setTearingDown(null)} />}
    </>
  );
}
