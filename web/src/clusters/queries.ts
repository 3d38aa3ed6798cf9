import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';

/** How often the cluster list refreshes, so provisioning progress moves. */
export const CLUSTERS_REFRESH_MS = 3000;

export const clusterKeys = {
  all: ['clusters'] as const,
  one: (id: string) => ['clusters', id] as const,
  health: (id: string) => ['clusters', id, 'health'] as const,
};

export function useClusters() {
  return useQuery({ queryKey: clusterKeys.all, queryFn: api.clusters, refetchInterval: CLUSTERS_REFRESH_MS });
}

export function useCluster(id: string, refetch = true) {
  return useQuery({ queryKey: clusterKeys.one(id), queryFn: () => api.cluster(id), refetchInterval: refetch ? CLUSTERS_REFRESH_MS : false });
}

/** The health score, only for a cluster whose metrics can be read. */
export function useHealth(id: string, enabled: boolean) {
  return useQuery({ queryKey: clusterKeys.health(id), queryFn: () => api.health(id), enabled, refetchInterval: 30000, retry: false });
}

/** Whether the server offers teardown (the API lists it once it has it). */
export function useCanTeardown() {
  const q = useQuery({ queryKey: ['openapi'], queryFn: api.openapi, staleTime: Infinity });
  return Boolean(q.data?.paths?.['/api/v1/clusters/{id}/teardown']);
}
