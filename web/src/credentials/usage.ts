import type { Cluster } from '../api/client';

/** The clusters that use credential id, as "name (status)", in the order listed. */
export function clustersUsing(clusters: Pick<Cluster, 'name' | 'status' | 'credential_id'>[], id: string): string[] {
  return clusters.filter((c) => c.credential_id === id).map((c) => `${c.name} (${c.status})`);
}
