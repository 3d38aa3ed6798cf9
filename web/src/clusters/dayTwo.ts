import { ApiError, type Cluster } from '../api/client';
import { useProviders } from '../credentials/queries';
import { isProvisioned } from './labels';

/** What the cluster's plugin lets KubeOpera do to it, as its capabilities say. */
export function useDayTwo(c: Cluster) {
  const providers = useProviders();
  const name = c.plugin || c.provider;
  const provider = providers.data?.items.find((p) => p.name === name);
  const caps = provider?.capabilities ?? [];
  const provisioned = isProvisioned(c.source);
  return {
    scale: provisioned && caps.includes('scale'),
    upgrade: provisioned && caps.includes('upgrade'),
    destroy: provisioned && caps.includes('destroy'),
    upgradeTargets: upgradeTargets(provider?.upgrades ?? [], c.kubernetes_version ?? ''),
  };
}

/** Same version as the server's sdk.SameVersion: "1.36" names every 1.36.x; a leading "v" is ignored. */
export function sameVersion(want: string, have: string): boolean {
  const w = want.replace(/^v/, '');
  const h = have.replace(/^v/, '');
  return w === h || h.startsWith(w + '.');
}

/** The versions a plugin's upgrade paths offer a cluster at version `from` (none when it is unknown). */
export function upgradeTargets(paths: readonly { from: string; to: string[] }[], from: string): string[] {
  if (!from) return [];
  return paths.find((u) => sameVersion(u.from, from))?.to ?? [];
}

/** The message for a refused change: the field's own when the API names one, else the problem's detail. */
export function changeError(err: Error | null, field: string): string | undefined {
  if (!err) return undefined;
  return (err instanceof ApiError && err.fieldErrors()[field]) || err.message;
}
