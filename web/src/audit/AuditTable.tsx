import type { AuditEvent } from '../api/client';
import { outcome } from './filters';

function AuditRow({ e }: { e: AuditEvent }) {
  const o = outcome(e);
  return (
    <tr>
      <td><time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time></td>
      <td>{e.actor || <span className="muted">{e.actorId}</span>}</td>
      <td><code>{e.method} {e.route}</code></td>
      <td>{e.target ? <code>{e.target}</code> : <span className="muted">—</span>}</td>
      <td className={o.failed ? 'audit-failed' : undefined}>{o.text}</td>
      <td><code>{e.requestId}</code></td>
    </tr>
  );
}

/** One page of events, newest first as the API lists them. */
export function AuditTable({ items }: { items: AuditEvent[] }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Audit events table, scrolls sideways">
      <table className="table audit-table">
        <caption className="sr-only">Audit events, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Request</th>
            <th scope="col">Target</th><th scope="col">Result</th><th scope="col">Request ID</th>
          </tr>
        </thead>
        <tbody>{items.map((e) => <AuditRow key={e.id} e={e} />)}</tbody>
      </table>
    </div>
  );
}
