import type { ClusterEvent } from '../api/client';
import { ago } from './watchCommands';

/** The newest events about the HostCluster, newest first. */
export function EventList({ events }: { events: ClusterEvent[] }) {
  if (events.length === 0) return <p className="muted">No events about this cluster (Kubernetes keeps them for an hour).</p>;
  return (
    // A focusable region that scrolls sideways on narrow screens, not the page.
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Events table, scrolls sideways">
    <table className="table" data-testid="events">
      <caption className="sr-only">Recent events</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Type</th><th scope="col">Reason</th><th scope="col">Message</th></tr></thead>
      <tbody>
        {events.map((e, i) => (
          <tr key={i} className={e.type === 'Warning' ? 'warning' : undefined}>
            <td><time dateTime={e.lastSeen}>{ago(e.lastSeen)}</time>{e.count > 1 && <span className="muted"> ×{e.count}</span>}</td>
            <td>{e.type}</td><td>{e.reason}</td><td>{e.message}</td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}
