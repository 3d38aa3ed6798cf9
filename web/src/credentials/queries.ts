import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { kindsOf } from '../forms/fields';

export const credentialKeys = { all: ['credentials'] as const };
export const providerKeys = { all: ['providers'] as const };

export function useCredentials() {
  return useQuery({ queryKey: credentialKeys.all, queryFn: api.credentials });
}

export function useProviders() {
  return useQuery({ queryKey: providerKeys.all, queryFn: api.providers });
}

/** Every credential kind the loaded plugins declare. */
export function useCredentialKinds() {
  const q = useProviders();
  return { ...q, kinds: q.data ? kindsOf(q.data.items) : [] };
}
