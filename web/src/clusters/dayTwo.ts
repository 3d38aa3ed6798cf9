import { ApiError, type Cluster } from '../api/client';
import { useProviders } from '../credentials/queries';
import { isProvisioned } from './labels';

/** What the cluster's plugin lets KubeOpera do to it, as its capabilities say. */
export function useDayTwo(c: Cluster) {
  const providers = useProviders();
  const name = c.plugin || c.provider;
  const caps = providers.data?.items.find((p) => p.name === name)?.capabilities ?? [];
  const provisioned = isProvisioned(c.source);
  return {
    scale: provisioned && caps.includes('scale'),
    upgrade: provisioned && caps.includes('upgrade'),
    destroy: provisioned && caps.includes('destroy'),
  };
}

/** The message for a refused change: the field's own when the API names one, else the problem's detail. */
export function changeError(err: Error | null, field: string): string | undefined {
  if (!err) return undefined;
  return (err instanceof ApiError && err.fieldErrors()[field]) || err.message;
}
