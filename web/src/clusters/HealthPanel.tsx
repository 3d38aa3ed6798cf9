import type { UseQueryResult } from '@tanstack/react-query';
import type { HealthScore } from '../api/client';
import { Loading } from '../ui/states';

/** The health score and the findings that produced it, once the cluster is live. */
export function HealthPanel({ live, health }: { live: boolean; health: UseQueryResult<HealthScore, Error> }) {
  return (
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
  );
}
