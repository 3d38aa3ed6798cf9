import { Link, useParams } from 'react-router';
import { ErrorState, Loading } from '../ui/states';
import { HealthBadge, StatusBadge } from './StatusBadge';
import { Timeline } from './Timeline';
import { DayTwoActions } from './DayTwoActions';
import { isProvisioned, sourceLabel } from './labels';
import { useCluster, useHealth } from './queries';

export function ClusterDetailPage() {
  const { id = '' } = useParams();
  const q = useCluster(id);
  const live = q.data?.badge === 'green';
  const health = useHealth(id, live);
  if (q.isPending) return <Loading what="the cluster" />;
  if (q.isError) return <ErrorState title="The cluster could not be loaded." error={q.error} onRetry={() => q.refetch()} />;
  const c = q.data;
  const commands = [
    `kubectl get hostcluster ${c.id} -n kubeopera-system -w`,
    ...(isProvisioned(c.source)
      ? ['kubectl get jobs -n kubeopera-provisioning', `kubectl logs -n kubeopera-provisioning job/provision-${c.id} -f`]
      : []),
  ];
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
          <div><dt>Nodes</dt><dd>{c.ready_node_count}/{c.node_count} ready</dd></div>
          <div><dt>Provider</dt><dd>{c.provider || '—'}</dd></div>
          <div><dt>Region</dt><dd>{c.region || '—'}</dd></div>
          <div><dt>Kubernetes</dt><dd>{c.kubernetes_version || '—'}</dd></div>
          <div><dt>Source</dt><dd>{sourceLabel(c.source)}</dd></div>
          <div><dt>ID</dt><dd><code>{c.id}</code></dd></div>
        </dl>
      </section>
      <section className="panel" aria-labelledby="health-title">
        <h2 id="health-title">Health</h2>
        {!live ? <p className="muted">A health score is computed once the cluster is ready and its metrics can be read.</p>
          : health.isPending ? <Loading what="the health score" />
          : health.isError ? <p className="muted">No live metrics: {health.error.message}</p>
          : (
            <>
              <p>Score <strong>{Math.round(health.data.score)}</strong> of 100 · CPU {health.data.cpuPercent.toFixed(1)}% · memory {health.data.memoryPercent.toFixed(1)}%</p>
              {health.data.findings.length === 0 ? <p className="muted">No findings: nothing was deducted.</p> : (
                <table className="table">
                  <caption className="sr-only">Findings</caption>
                  <thead><tr><th scope="col">Finding</th><th scope="col">Subject</th><th scope="col">Penalty</th></tr></thead>
                  <tbody>
                    {health.data.findings.map((f, i) => (
                      <tr key={i}><td>{f.detail || f.rule}</td><td>{f.subject}</td><td>−{f.penalty}</td></tr>
                    ))}
                  </tbody>
                </table>
              )}
            </>
          )}
      </section>
      <section className="panel" aria-labelledby="nodes-title">
        <h2 id="nodes-title">Nodes</h2>
        {c.nodesError && <p className="muted">{c.nodesError}</p>}
        {c.nodes?.length ? (
          <table className="table">
            <caption className="sr-only">Nodes</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Ready</th><th scope="col">Version</th></tr></thead>
            <tbody>{c.nodes.map((n) => <tr key={n.name}><td>{n.name}</td><td>{n.ready ? 'Ready' : 'Not ready'}</td><td>{n.version}</td></tr>)}</tbody>
          </table>
        ) : !c.nodesError && <p className="muted">{c.ready_node_count} of {c.node_count} nodes ready; per-node details are shown for a self-registered cluster.</p>}
      </section>
      <section className="panel" aria-labelledby="kubectl-title">
        <h2 id="kubectl-title">Watch it with kubectl</h2>
        <pre className="commands" tabIndex={0} aria-label="kubectl commands">{commands.join('\n')}</pre>
      </section>
    </>
  );
}
