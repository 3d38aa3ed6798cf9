const sourceLabels: Record<string, string> = {
  self_registered: 'Self-registered',
  connected_existing: 'Connected',
  provisioned_vanilla: 'Provisioned (Vanilla Kubernetes)',
  provisioned_eks: 'Provisioned (EKS)',
};

/** The ways a cluster comes to be known, as the API names them. */
export const sources = Object.keys(sourceLabels);

export function sourceLabel(source?: string): string {
  return (source && sourceLabels[source]) || source || '—';
}

export function isProvisioned(source?: string): boolean {
  return source === 'provisioned_vanilla' || source === 'provisioned_eks';
}
