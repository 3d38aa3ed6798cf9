import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { Empty, ErrorState, Loading } from '../ui/states';
import { ComparisonTable } from './ComparisonTable';
import { CpuTreemap } from './CpuTreemap';
import { statusBadges } from './fleet';
import { SummaryCards } from './SummaryCards';

const REFRESH_MS = 15000;

export function MultiClusterPage() {
  // One request: the overview carries each cluster's status and badge and
  // the Ready count beside its health and usage.
  const q = useQuery({ queryKey: ['overview'], queryFn: api.overview, refetchInterval: REFRESH_MS });
  return (
    <>
      <div className="page-head"><h1>Multi-Cluster View</h1></div>
      {q.isPending ? <Loading what="the fleet overview" />
        : q.isError ? <ErrorState title="The fleet overview could not be loaded." error={q.error} onRetry={() => q.refetch()} />
        : q.data.clusters.length === 0 ? <Empty>No reachable clusters to compare yet.</Empty>
        : (
          <>
            <SummaryCards summary={q.data.summary ?? {}} />
            <section className="panel" aria-labelledby="compare-title">
              <h2 id="compare-title">Comparison</h2>
              <ComparisonTable rows={q.data.clusters} currency={q.data.summary.currency} />
            </section>
            <section className="panel" aria-labelledby="treemap-title">
              <h2 id="treemap-title">CPU usage by cluster</h2>
              <p className="muted">Sized by CPU usage %, coloured by status.</p>
              <CpuTreemap rows={q.data.clusters} badges={statusBadges(q.data.clusters)} />
            </section>
          </>
        )}
    </>
  );
}
