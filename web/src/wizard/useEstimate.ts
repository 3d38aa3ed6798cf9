import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Provider } from '../api/client';

/** Whether a provider prices clusters before they are created: only a plugin that declares "estimate" is asked. */
export function givesEstimate(p: Provider | null): p is Provider {
  return !!p && p.availability === 'AVAILABLE' && p.capabilities.includes('estimate');
}

/** value, once it has stopped changing for ms. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/**
 * The plugin's estimate of a cluster of these inputs, asked again as the
 * form settles (400 ms after the last change); disabled for a plugin that
 * gives none, so the wizard shows nothing rather than a made-up figure.
 */
export function useEstimate(provider: Provider | null, inputs: Record<string, string>) {
  const settled = useSettled(inputs, 400);
  const enabled = givesEstimate(provider);
  const q = useQuery({
    queryKey: ['estimate', provider?.name ?? '', settled],
    queryFn: () => api.estimate(provider?.name ?? '', settled),
    enabled,
    retry: false,
    placeholderData: keepPreviousData,
    staleTime: 5 * 60_000,
  });
  // A disabled query still hands out the placeholder: the previous
  // provider's figure, which is not this one's.
  if (!enabled) return { estimate: undefined, error: null, updating: false };
  return { estimate: q.data, error: q.error, updating: q.isFetching };
}
