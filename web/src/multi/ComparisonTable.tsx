import { useMemo, useState } from 'react';
import type { OverviewRow } from '../api/client';
import { Pager } from '../ui/Pager';
import { healthColour } from '../clusters/StatusBadge';
import { money, pct } from './format';

/** Rows rendered at once; the rest are a page away. */
const ROWS_PER_PAGE = 50;

type Key = 'name' | 'score' | 'nodes' | 'cpuPercent' | 'memoryPercent' | 'monthlyCost';
const columns: { key: Key; label: string }[] = [
  { key: 'name', label: 'Cluster' },
  { key: 'score', label: 'Health' },
  { key: 'nodes', label: 'Nodes ready' },
  { key: 'cpuPercent', label: 'CPU' },
  { key: 'memoryPercent', label: 'Memory' },
  { key: 'monthlyCost', label: 'Monthly cost' },
];

function sortValue(r: OverviewRow, k: Key): number | string {
  if (k === 'name') return r.name;
  if (k === 'nodes') return r.nodesTotal ? r.nodesReady / r.nodesTotal : 0;
  return r[k] ?? 0;
}

function Bar({ value, label }: { value: number; label: string }) {
  const v = Math.max(0, Math.min(100, value));
  return (
    <div className="bar" role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(v)} aria-label={label}>
      <span style={{ width: `${v}%` }} className={v >= 95 ? 'red' : v >= 80 ? 'amber' : 'green'} />
      <em>{pct(value)}</em>
    </div>
  );
}

export function ComparisonTable({ rows, currency }: { rows: OverviewRow[]; currency: string }) {
  const [sort, setSort] = useState<{ key: Key; asc: boolean }>({ key: 'name', asc: true });
  const [page, setPage] = useState(1);
  const pages = Math.max(1, Math.ceil(rows.length / ROWS_PER_PAGE));
  const shown = Math.min(page, pages);
  const sorted = useMemo(() => {
    const out = [...rows];
    out.sort((a, b) => {
      const x = sortValue(a, sort.key), y = sortValue(b, sort.key);
      const c = typeof x === 'string' ? x.localeCompare(String(y)) : x - (y as number);
      return sort.asc ? c : -c;
    });
    return out.slice((shown - 1) * ROWS_PER_PAGE, shown * ROWS_PER_PAGE);
  }, [rows, sort, shown]);
  return (
    <div className="table-wrap">
      <table className="table" data-testid="comparison">
        <caption className="sr-only">Clusters compared; column headers sort</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col" aria-sort={sort.key === c.key ? (sort.asc ? 'ascending' : 'descending') : 'none'}>
                <button type="button" className="sort" onClick={() => { setSort((s) => ({ key: c.key, asc: s.key === c.key ? !s.asc : true })); setPage(1); }}>
                  {c.label}{sort.key === c.key ? (sort.asc ? ' ▲' : ' ▼') : ''}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sorted.map((r) => (
            <tr key={r.id}>
              <th scope="row">{r.name}{!r.reachable && <span className="muted"> (unreachable{r.error ? `: ${r.error}` : ''})</span>}</th>
              <td><span className={`badge ${healthColour(r.badge)}`}>{r.reachable ? Math.round(r.score) : '—'}</span></td>
              <td>{r.nodesReady}/{r.nodesTotal}</td>
              <td><Bar value={r.cpuPercent} label={`CPU of ${r.name}`} /></td>
              <td><Bar value={r.memoryPercent} label={`Memory of ${r.name}`} /></td>
              <td>{money(r.monthlyCost, currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager label="Comparison pages" page={shown} hasPrevious={shown > 1} hasNext={shown < pages}
        onPrevious={() => setPage(shown - 1)} onNext={() => setPage(shown + 1)} />
    </div>
  );
}
