import { describe, expect, it } from 'vitest';
import type { ClusterDetail, Node, Provider } from '../api/client';
import { runningInputs } from './runningCost';

const node = (roles: string[], instanceType?: string) => ({ name: 'n', ready: true, roles, instanceType }) as Node;
const cluster = (nodes: Node[], extra: Partial<ClusterDetail> = {}) =>
  ({ plugin: 'aws-vanilla', region: 'us-east-1', nodes, ...extra }) as ClusterDetail;
const provider = (...inputs: string[]) =>
  ({ name: 'p', regionInput: 'region', schema: ['region', ...inputs].map((name) => ({ name })) }) as Provider;

describe('runningInputs', () => {
  it('counts control planes and workers from the nodes for a plugin with both inputs', () => {
    const c = cluster([node(['control-plane'], 't3.large'), node([], 't3.large'), node([], 't3.large')]);
    expect(runningInputs(c, provider('controlPlaneCount', 'nodeCount', 'instanceType')))
      .toEqual({ region: 'us-east-1', instanceType: 't3.large', controlPlaneCount: '1', nodeCount: '2' });
  });

  it('counts every node as a worker for a plugin without control planes (EKS)', () => {
    const c = cluster([node([], 't3.medium'), node([], 't3.medium')], { plugin: 'aws-eks' });
    expect(runningInputs(c, provider('nodeCount', 'instanceType'))).toEqual({ region: 'us-east-1', instanceType: 't3.medium', nodeCount: '2' });
  });

  it('gives nothing to price when the nodes do not say enough', () => {
    const p = provider('nodeCount', 'instanceType');
    expect(runningInputs(cluster([node([], 't3.medium'), node([], 't3.large')]), p)).toBeNull();
    expect(runningInputs(cluster([node([])]), p)).toBeNull();
    expect(runningInputs(cluster([]), p)).toBeNull();
    expect(runningInputs(cluster([node([], 't3.medium')], { plugin: undefined }), p)).toBeNull();
  });
});
