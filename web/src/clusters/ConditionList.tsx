import type { ClusterCondition } from '../api/client';
import { ago } from './watchCommands';

/** The HostCluster's conditions: what the controller found at each step. */
export function ConditionList({ conditions }: { conditions: ClusterCondition[] }) {
  if (conditions.length === 0) return <p className="muted">The controller has recorded no conditions yet.</p>;
  return (
    // A focusable region that scrolls sideways on narrow screens, not the page.
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Conditions table, scrolls sideways">
    <table className="table" data-testid="conditions">
      <caption className="sr-only">Conditions</caption>
      <thead><tr><th scope="col">Condition</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">Message</th><th scope="col">Since</th></tr></thead>
      <tbody>
        {conditions.map((c) => (
          <tr key={c.type}>
            <td>{c.type}</td><td>{c.status}</td><td>{c.reason || '—'}</td><td>{c.message || '—'}</td>
            <td><time dateTime={c.lastTransitionTime}>{ago(c.lastTransitionTime)}</time></td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}
