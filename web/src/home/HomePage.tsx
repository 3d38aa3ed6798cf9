import { useState } from 'react';
import { Link } from 'react-router';
import { useClusterPage } from '../clusters/queries';
import { ErrorState } from '../ui/states';

/** Where the banner's dismissal is remembered, per browser. */
export const BANNER_KEY = 'kubeopera.hostBannerDismissed';

function HostBanner() {
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(BANNER_KEY) === '1');
  if (dismissed) return null;
  return (
    <div className="banner" role="region" aria-label="Set up a host cluster">
      <p>KubeOpera has no host cluster yet. <Link to="/clusters">Go to Clusters to get started</Link>.</p>
      <button type="button" className="icon" aria-label="Dismiss" onClick={() => { localStorage.setItem(BANNER_KEY, '1'); setDismissed(true); }}>×</button>
    </div>
  );
}

export function HomePage() {
  // The first page is enough: whether a host exists, and roughly how many clusters.
  const q = useClusterPage({});
  const n = q.data?.items?.length ?? 0;
  return (
    <>
      {q.data && !q.data.hostRegistered && <HostBanner />}
      <div className="page-head"><h1>KubeOpera</h1></div>
      {q.isError && <ErrorState title="The clusters could not be loaded." error={q.error} onRetry={() => q.refetch()} />}
      <div className="cards">
        <Link className="card link-card" to="/clusters">
          <h2>Clusters</h2>
          <p className="muted">{q.isPending ? 'Loading…' : `${n}${q.data?.continue ? '+' : ''} ${n === 1 ? 'cluster' : 'clusters'}`}: register, connect or create clusters and watch them.</p>
        </Link>
        <Link className="card link-card" to="/clusters/multi">
          <h2>Multi-Cluster View</h2>
          <p className="muted">Health, nodes, CPU, memory and cost across the fleet.</p>
        </Link>
      </div>
    </>
  );
}
