import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Provider } from '../api/client';

/** Whether a provider prices clusters before they are created: only a plugin that declares "estimate" is asked. */
export function givesEstimate(p: Provider | null): p is Provider {
  return !!p && p.availability === 'AVAILABLE' && p.capabilities.includes('estimate');
}

/** inputs, once they have stopped changing for ms; compared by content, so a caller may build them anew each render. */
function useSettled(inputs: Record<string, string>, ms: number): Record<string, string> {
  const key = JSON.stringify(inputs);
  const [settled, setSettled] = useState(key);
  useEffect(() => {
    const t = setTimeout(() => setSettled(key), ms);
    return () => clearTimeout(t);
  }, [key, ms]);
  return JSON.parse(settled) as Record<string, string>;
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
