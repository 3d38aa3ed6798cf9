import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DownloadKubeconfig } from './DownloadKubeconfig';
import { kubeconfigDownload, kubeconfigFileName } from './kubeconfigFile';

const answer = {
  kubeconfig: 'apiVersion: v1\nkind: Config\nclusters:\n- name: prod-eu\n  cluster:\n    server: https://kubeopera.example.com/k8s/clusters/c1\n',
  expiresAt: '2026-12-08T04:00:00Z',
};

describe('kubeconfig download', () => {
  it('saves the answer as <cluster>.kubeconfig, byte for byte, as YAML', async () => {
    const { fileName, blob } = kubeconfigDownload(answer, 'prod-eu');
    expect(fileName).toBe('prod-eu.kubeconfig');
    expect(blob.type).toBe('application/yaml');
    expect(await blob.text()).toBe(answer.kubeconfig);
  });

  it.each([
    ['a name with a path in it', '../../etc/passwd', '-..-etc-passwd.kubeconfig'],
    ['a hidden-file name', '.profile', 'profile.kubeconfig'],
    ['an empty name', '', 'cluster.kubeconfig'],
    ['spaces and slashes', 'team a/prod', 'team-a-prod.kubeconfig'],
  ])('keeps %s out of the file name', (_, name, want) => {
    expect(kubeconfigFileName(name)).toBe(want);
  });

  it('offers the button on the cluster page with no role in sight: the server decides who gets one', () => {
    const html = renderToStaticMarkup(
      <QueryClientProvider client={new QueryClient()}>
        <DownloadKubeconfig cluster={{ id: 'c1', name: 'prod-eu' }} />
      </QueryClientProvider>,
    );
    expect(html).toContain('>Download kubeconfig</button>');
    expect(html).toContain('kubeopera clusters kubeconfig prod-eu --exec');
  });
});
