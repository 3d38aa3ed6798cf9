import type { ClusterDetail, Provider } from '../api/client';

/**
 * The inputs that describe what a provisioned cluster runs now, read from
 * its nodes (their count, roles and the instance type the cloud labelled
 * them with) and its region, for the plugin's estimate: the same figure
 * the wizard showed, for the machines there are. null when the nodes do
 * not say enough (no nodes, no instance type, or more than one), so the
 * page shows no figure rather than a guess.
 */
export function runningInputs(c: ClusterDetail, p: Provider): Record<string, string> | null {
  const nodes = c.nodes ?? [];
  const types = new Set(nodes.map((n) => n.instanceType ?? ''));
  if (!c.plugin || !c.region || nodes.length === 0 || types.size !== 1 || types.has('')) return null;
  const has = (name: string) => p.schema.some((f) => f.name === name);
  const controlPlanes = nodes.filter((n) => n.roles.includes('control-plane')).length;
  const inputs: Record<string, string> = {};
  if (has(p.regionInput ?? 'region')) inputs[p.regionInput || 'region'] = c.region;
  if (has('instanceType')) inputs.instanceType = [...types][0];
  if (has('controlPlaneCount')) {
    inputs.controlPlaneCount = String(controlPlanes);
    inputs.nodeCount = String(nodes.length - controlPlanes);
  } else if (has('nodeCount')) {
    inputs.nodeCount = String(nodes.length);
  }
  return inputs;
}
