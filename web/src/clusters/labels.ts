import { clusterSourceValues, type components } from '../api/schema';

type Source = components['schemas']['Cluster']['source'];

/** A label for every source the document lists: a new one fails the type check until it has one. */
const sourceLabels: Record<Source, string> = {
  self_registered: 'Self-registered',
  connected_existing: 'Connected',
  provisioned_vanilla: 'Provisioned (Vanilla Kubernetes)',
  provisioned_eks: 'Provisioned (EKS)',
  provisioned: 'Provisioned',
};

/** The ways a cluster comes to be known, as the API names them. */
export const sources = clusterSourceValues;

export function sourceLabel(source?: string): string {
  return (source && sourceLabels[source as Source]) || source || '—';
}
