import type { ClusterDetail } from '../api/client';
import { useProviders } from '../credentials/queries';
import { CostEstimate } from '../wizard/CostEstimate';
import { givesEstimate, useEstimate } from '../wizard/useEstimate';
import { runningInputs } from './runningCost';

/**
 * What the machines a provisioned cluster runs now cost by the hour, by its
 * plugin's estimate of them; nothing for a plugin without one, or nodes
 * that do not say enough to price them.
 */
export function RunningCost({ cluster }: { cluster: ClusterDetail }) {
  const providers = useProviders();
  const p = providers.data?.items.find((x) => x.name === cluster.plugin) ?? null;
  const inputs = p ? runningInputs(cluster, p) : null;
  const est = useEstimate(inputs && givesEstimate(p) ? p : null, inputs ?? {});
  if (!inputs || !givesEstimate(p)) return null;
  return <CostEstimate {...est} title="Cost of what runs now" />;
}
