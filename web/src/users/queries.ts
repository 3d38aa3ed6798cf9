import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';

export const userKeys = { all: ['users'] as const };

export function useUsers() {
  return useQuery({ queryKey: userKeys.all, queryFn: api.users });
}

/** A change to users that refreshes the list once it is done. */
export function useUserChange<A, R>(fn: (a: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => qc.invalidateQueries({ queryKey: userKeys.all }) });
}
