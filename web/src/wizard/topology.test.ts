import { describe, expect, it } from 'vitest';
import { topologyLabel } from './topology';

describe('topologyLabel', () => {
  it.each([
    ['kubeadm', 'Vanilla Kubernetes (kubeadm)'],
    ['eks', 'Managed (EKS)'],
    ['sandbox', 'sandbox'],
  ])('%s reads %s', (topology, label) => {
    expect(topologyLabel(topology)).toBe(label);
  });
});
