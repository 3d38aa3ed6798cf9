import type { Node } from '../api/client';

export function NodeList({ nodes }: { nodes: Node[] }) {
  return (
    <ul className="nodes" aria-label="Nodes">
      {nodes.map((n) => (
        <li key={n.name}>
          <span className={`dot ${n.ready ? 'green' : 'red'}`} aria-hidden="true" />
          {n.name} <span className="muted">{n.ready ? 'Ready' : 'Not ready'}{n.version ? ` · ${n.version}` : ''}</span>
        </li>
      ))}
    </ul>
  );
}
