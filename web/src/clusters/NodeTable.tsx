import type { Node } from '../api/client';

/** The cluster's nodes as read live from it, one row each. */
export function NodeTable({ nodes }: { nodes: Node[] }) {
  return (
    // A focusable region that scrolls sideways on narrow screens, not the page.
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Nodes table, scrolls sideways">
    <table className="table" data-testid="node-table">
      <caption className="sr-only">Nodes</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Ready</th><th scope="col">Roles</th><th scope="col">Version</th><th scope="col">CPU</th><th scope="col">Memory</th></tr></thead>
      <tbody>
        {nodes.map((n) => (
          <tr key={n.name}>
            <td>{n.name}</td><td>{n.ready ? 'Ready' : 'Not ready'}</td><td>{n.roles.join(', ') || '—'}</td><td>{n.version || '—'}</td>
            <td>{n.cpu.allocatable}</td><td>{n.memory.allocatable}</td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}
