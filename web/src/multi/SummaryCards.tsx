import type { Overview } from '../api/client';
import { money, pct, ratio } from './format';

type Summary = NonNullable<Overview['summary']>;

function Card({ label, value, testid }: { label: string; value: string; testid: string }) {
  return (
    <div className="card summary" data-testid={testid}>
      <p className="summary-label">{label}</p>
      <p className="summary-value">{value}</p>
    </div>
  );
}

/** The fleet's totals; Healthy Clusters counts those whose status is Ready. */
export function SummaryCards({ summary: s }: { summary: Summary }) {
  return (
    <section className="summary-cards" aria-label="Fleet summary">
      <Card testid="total-clusters" label="Total Clusters" value={String(s.clusters)} />
      <Card testid="healthy-clusters" label="Healthy Clusters" value={ratio(s.ready, s.clusters)} />
      <Card testid="total-nodes" label="Total Nodes" value={ratio(s.nodesReady, s.nodesTotal)} />
      <Card testid="avg-cpu" label="Avg CPU Usage" value={pct(s.averageCpuPercent)} />
      <Card testid="monthly-cost" label="Monthly Cost" value={money(s.monthlyCost, s.currency ?? 'USD')} />
    </section>
  );
}
