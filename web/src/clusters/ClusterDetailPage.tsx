import { Link, useParams } from 'react-router';
import { Loading } from '../ui/states';
import { ClusterLoadError } from './ClusterLoadError';
import { HealthPanel } from './HealthPanel';
import { HealthBadge, StatusBadge } from './StatusBadge';
import { Timeline } from './Timeline';
import { DayTwoActions } from './DayTwoActions';
import { sourceLabel } from './labels';
import { useCluster, useHealth } from './queries';
import { ConditionList } from './ConditionList';
import { EventList } from './EventList';
import { NodeTable } from './NodeTable';
import { RunningCost } from './RunningCost';
import { watchCommands } from './watchCommands';
import { DownloadKubeconfig } from './DownloadKubeconfig';

export function ClusterDetailPage() {
  const { id = '' } = useParams();
  const q = useCluster(id);
  const live = q.data?.badge === 'green';
  const health = useHealth(id, live);
  if (q.isPending) return <Loading what="the cluster" />;
  if (q.isError) return <ClusterLoadError id={id} error={q.error} onRetry={() => q.refetch()} />;
  const c = q.data;
  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs"><Link to="/clusters">Clusters</Link> / {c.name}</nav>
      <div className="page-head">
        <h1>{c.name}</h1>
        <div className="badges"><StatusBadge status={c.status} badge={c.badge} />{health.data && <HealthBadge score={health.data.score} badge={health.data.badge} />}</div>
      </div>
      {c.message && <p className="message">{c.message}</p>}
      <section className="panel" aria-labelledby="phase-title">
        <h2 id="phase-title">Phase</h2>
        <Timeline cluster={c} />
      </section>
      <DayTwoActions cluster={c} />
      <section className="panel" aria-labelledby="facts-title">
        <h2 id="facts-title">Details</h2>
        <dl className="facts">
          <div><dt>Team</dt><dd data-testid="cluster-team">{c.team}</dd></div>
          <div><dt>Your role</dt><dd>{c.role || '—'}</dd></div>
          <div><dt>Nodes</dt><dd>{c.ready_node_count}/{c.node_count} ready</dd></div>
          <div><dt>Provider</dt><dd>{c.provider || '—'}</dd></div>
          <div><dt>Region</dt><dd>{c.region || '—'}</dd></div>
          <div><dt>Kubernetes</dt><dd>{c.kubernetes_version || '—'}</dd></div>
          <div><dt>Source</dt><dd>{sourceLabel(c.source)}</dd></div>
          <div><dt>ID</dt><dd><code>{c.id}</code></dd></div>
        </dl>
      </section>
      <HealthPanel live={live} health={health} />
      <section className="panel" aria-labelledby="nodes-title">
        <h2 id="nodes-title">Nodes</h2>
        {c.nodesError && <p className="muted">{c.nodesError}</p>}
        {c.nodes?.length ? <NodeTable nodes={c.nodes} /> : !c.nodesError && <p className="muted">The cluster reports no nodes.</p>}
        <RunningCost cluster={c} />
      </section>
      {c.source !== 'self_registered' && (
        <>
          <section className="panel" aria-labelledby="conditions-title">
            <h2 id="conditions-title">Conditions</h2>
            {c.detailError && <p className="muted">{c.detailError}</p>}
            <ConditionList conditions={c.conditions} />
          </section>
          <section className="panel" aria-labelledby="events-title">
            <h2 id="events-title">Recent events</h2>
            <EventList events={c.events} />
          </section>
        </>
      )}
      <section className="panel" aria-labelledby="access-title">
        <h2 id="access-title">Use it with kubectl</h2>
        <DownloadKubeconfig cluster={c} />
      </section>
      <section className="panel" aria-labelledby="kubectl-title">
        <h2 id="kubectl-title">Watch it with kubectl</h2>
        <pre className="commands" tabIndex={0} aria-label="kubectl commands">{watchCommands(c).join('\n')}</pre>
      </section>
    </>
  );
}
