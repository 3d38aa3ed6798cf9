import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { clusterKeys } from '../clusters/queries';
import { Empty, ErrorState, Loading } from '../ui/states';
import { ComparisonTable } from './ComparisonTable';
import { CpuTreemap } from './CpuTreemap';
import { readyClusters, statusBadges } from './fleet';
import { SummaryCards } from './SummaryCards';

const REFRESH_MS = 15000;

export function MultiClusterPage() {
  const q = useQuery({ queryKey: ['overview'], queryFn: api.overview, refetchInterval: REFRESH_MS });
  // Every cluster's status (no limit: one list), for Healthy Clusters and
  // the treemap's colours; the overview carries health, not status.
  const cs = useQuery({ queryKey: [...clusterKeys.all, 'fleet'], queryFn: () => api.clusters(), refetchInterval: REFRESH_MS });
  return (
    <>
      <div className="page-head"><h1>Multi-Cluster View</h1></div>
      {q.isPending || cs.isPending ? <Loading what="the fleet overview" />
        : q.isError ? <ErrorState title="The fleet overview could not be loaded." error={q.error} onRetry={() => q.refetch()} />
        : cs.isError ? <ErrorState title="The clusters' status could not be loaded." error={cs.error} onRetry={() => cs.refetch()} />
        : q.data.clusters.length === 0 ? <Empty>No reachable clusters to compare yet.</Empty>
        : (
          <>
            <SummaryCards summary={q.data.summary ?? {}} ready={readyClusters(q.data.clusters, cs.data.items)} />
            <section className="panel" aria-labelledby="compare-title">
              <h2 id="compare-title">Comparison</h2>
              <ComparisonTable rows={q.data.clusters} currency={q.data.summary.currency} />
            </section>
            <section className="panel" aria-labelledby="treemap-title">
              <h2 id="treemap-title">CPU usage by cluster</h2>
              <p className="muted">Sized by CPU usage %, coloured by status.</p>
              <CpuTreemap rows={q.data.clusters} badges={statusBadges(q.data.clusters, cs.data.items)} />
            </section>
          </>
        )}
    </>
  );
}
