import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../api/client';
import { DisconnectDialog } from './DisconnectDialog';
import { clusterKeys } from './queries';

// The notice is the server's own (server/api/teardown.go, disconnectEffect).
const notice = "KubeOpera deletes the GitRepository and Kustomizations it made in the cluster's flux-system namespace " +
  "(they leave what they applied in place) and forgets the cluster; Flux's controllers, KubeOpera and your workloads keep running there";

function render(c: Cluster) {
  const qc = new QueryClient();
  qc.setQueryData(clusterKeys.one(c.id!), { ...c, disconnectNotice: notice });
  const html = renderToStaticMarkup(
    <QueryClientProvider client={qc}><DisconnectDialog cluster={c} onClose={() => {}} /></QueryClientProvider>);
  return html.replace(/<[^>]+>/g, '').replaceAll('&#x27;', "'");
}

describe('DisconnectDialog', () => {
  it('says what is removed and what keeps running once, without calling Flux both removed and untouched', () => {
    const text = render({ id: 'c1', name: 'prod', source: 'connected_existing', status: 'Ready' } as Cluster);
    expect(text).toContain('Removed: on the cluster, only the GitRepository and Kustomizations KubeOpera made in flux-system');
    expect(text).toContain("Kept running on the cluster: Flux's controllers and everything those Kustomizations applied");
    expect(text).not.toMatch(/not touched/i);
    expect(text).not.toMatch(/removes its Flux objects/i);
  });
});
