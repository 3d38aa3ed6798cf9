import type { Cluster, OverviewRow } from '../api/client';

/** A cluster's status badge, as GET /clusters gives it. */
export type StatusBadge = Cluster['badge'];

// The status badges' colours (as the cluster cards show them), dark enough
// for white text on a treemap cell.
const fills: Record<StatusBadge, string> = { green: '#1f7a3a', amber: '#a15c00', red: '#b42318', gray: '#5b6472' };

/** The treemap fill of a status badge; gray for none or one it does not know. */
export function badgeFill(badge: string | undefined): string {
  return fills[badge as StatusBadge] ?? fills.gray;
}

/**
 * The status badge of each overview row, by the row's id, as the overview
 * gives it. A row KubeOpera does not manage (a CLUSTER_REGISTRY entry, or
 * the host when no cluster is registered) has no status: gray.
 */
export function statusBadges(rows: OverviewRow[]): Map<string, StatusBadge> {
  return new Map(rows.map((r) => [r.id, r.statusBadge ?? 'gray'] as const));
}
