import { ResponsiveContainer, Tooltip, Treemap } from 'recharts';
import type { OverviewRow } from '../api/client';
import { badgeFill, type StatusBadge } from './fleet';
import { pct } from './format';

type Cell = { name: string; size: number; cpu: number; badge: string };

type ContentProps = { x?: number; y?: number; width?: number; height?: number; depth?: number; name?: string; badge?: string; cpu?: number };

function CellContent({ x = 0, y = 0, width = 0, height = 0, depth, name, badge, cpu }: ContentProps) {
  // The root (depth 0) is the whole chart, not a cluster: drawn, it lay
  // under the cells as a gray cluster without a name.
  if (depth === 0) return <g />;
  return (
    <g>
      <rect x={x} y={y} width={width} height={height} fill={badgeFill(badge)} data-badge={badge} stroke="#fff" />
      {width > 60 && height > 30 && (
        <text x={x + 6} y={y + 18} fill="#fff" fontSize={12}>{name} {pct(cpu)}</text>
      )}
    </g>
  );
}

function TooltipBody({ active, payload }: { active?: boolean; payload?: { payload?: Cell }[] }) {
  const c = payload?.[0]?.payload;
  if (!active || !c) return null;
  return <div className="tooltip" data-testid="treemap-tooltip"><strong>{c.name}</strong>: CPU {pct(c.cpu)}</div>;
}

/** Clusters sized by CPU usage %, coloured by their status badge (badges: by row id). */
export function CpuTreemap({ rows, badges }: { rows: OverviewRow[]; badges: Map<string, StatusBadge> }) {
  // A cluster at 0% still gets a sliver, so it can be seen and hovered.
  const data: Cell[] = rows.map((r) => ({ name: r.name, size: Math.max(r.cpuPercent, 0.5), cpu: r.cpuPercent, badge: badges.get(r.id) ?? 'gray' }));
  return (
    <div className="treemap" data-testid="treemap" role="img" aria-label={`Treemap of CPU usage: ${data.map((d) => `${d.name} ${pct(d.cpu)}`).join(', ')}`}>
      <ResponsiveContainer width="100%" height={280}>
        <Treemap data={data} dataKey="size" nameKey="name" isAnimationActive={false} content={<CellContent />}>
          <Tooltip content={<TooltipBody />} />
        </Treemap>
      </ResponsiveContainer>
    </div>
  );
}
