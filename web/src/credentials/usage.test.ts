import { describe, expect, it } from 'vitest';
import { clustersUsing } from './usage';

describe('clustersUsing', () => {
  const clusters = [
    { name: 'prod', status: 'Ready' as const, credential_id: 'c1' },
    { name: 'lab', status: 'Failed' as const, credential_id: 'c2' },
    { name: 'home', status: 'Ready' as const },
    { name: 'edge', status: 'Provisioning' as const, credential_id: 'c1' },
  ];
  it('names every cluster that uses the credential, with its status', () => {
    expect(clustersUsing(clusters, 'c1')).toEqual(['prod (Ready)', 'edge (Provisioning)']);
  });
  it('is empty for a credential no cluster uses, clusters without one included', () => {
    expect(clustersUsing(clusters, 'c3')).toEqual([]);
  });
});
