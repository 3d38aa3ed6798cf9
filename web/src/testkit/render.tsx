// For unit tests only: renders a component to HTML with what the app gives
// it (a query cache holding the given answers, a router, the auth context),
// without a browser or a server. No effect runs, so nothing is fetched:
// the component shows what the cache holds.
import { QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { AuthProvider } from '../auth/session';

export function renderWith(node: ReactNode, answers: [QueryKey, unknown][] = []): string {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  for (const [key, data] of answers) qc.setQueryData(key, data);
  return renderToStaticMarkup(
    <QueryClientProvider client={qc}>
      <AuthProvider>
        <MemoryRouter>{node}</MemoryRouter>
      </AuthProvider>
    </QueryClientProvider>,
  );
}
