import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type ClusterQuery } from '../api/client';

/** How often the cluster list refreshes, so provisioning progress moves. */
export const CLUSTERS_REFRESH_MS = 3000;

/** Cards per page: the browser renders a page, whatever the fleet's size. */
export const CLUSTERS_PAGE_SIZE = 50;

/** What the cluster list can be narrowed to; "" means any. */
export type ClusterFilters = Pick<ClusterQuery, 'phase' | 'provider' | 'source' | 'namePrefix' | 'team'>;

export const clusterKeys = {
  all: ['clusters'] as const,
  page: (q: ClusterQuery) => ['clusters', 'page', q] as const,
  one: (id: string) => ['clusters', id] as const,
  health: (id: string) => ['clusters', id, 'health'] as const,
};

/**
 * One page of clusters from the API's paging. While the next page or other
 * filters load, the page shown stays (no flash of "Loading").
 */
export function useClusterPage(q: ClusterQuery) {
  // Unset and empty parameters are left out, so equal pages share a cache entry.
  const query: ClusterQuery = Object.fromEntries(Object.entries({ limit: CLUSTERS_PAGE_SIZE, ...q }).filter(([, v]) => v !== undefined && v !== ''));
  return useQuery({ queryKey: clusterKeys.page(query), queryFn: () => api.clusters(query), refetchInterval: CLUSTERS_REFRESH_MS,
    placeholderData: keepPreviousData });
}

export function useCluster(id: string, refetch = true) {
  return useQuery({ queryKey: clusterKeys.one(id), queryFn: () => api.cluster(id), refetchInterval: refetch ? CLUSTERS_REFRESH_MS : false });
}

/** The health score, only for a cluster whose metrics can be read. */
export function useHealth(id: string, enabled: boolean) {
  return useQuery({ queryKey: clusterKeys.health(id), queryFn: () => api.health(id), enabled, refetchInterval: 30000, retry: false });
}

