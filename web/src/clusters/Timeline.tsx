import type { Cluster } from '../api/client';
import { timelineOf } from './phases';

/** The phases a cluster's onboarding goes through, for its source. */
export function Timeline({ cluster }: { cluster: Pick<Cluster, 'source' | 'status' | 'badge'> }) {
  const t = timelineOf(cluster.source, cluster.status);
  if (!t) return <p className="muted">A self-registered cluster has no HostCluster to reconcile.</p>;
  return (
    <ol className="timeline" aria-label="Phases" data-testid="timeline">
      {t.steps.map(({ phase, state }) => (
        <li key={phase} className={state} aria-current={state === 'current' ? 'step' : undefined}>
          {phase}{state === 'done' && <span className="sr-only"> (done)</span>}
        </li>
      ))}
      {t.outcome && <li className={`current ${cluster.badge}`} aria-current="step">{t.outcome}</li>}
    </ol>
  );
}
