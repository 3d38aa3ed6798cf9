const sources: Record<string, string> = {
  self_registered: 'Self-registered',
  connected_existing: 'Connected',
  provisioned_vanilla: 'Provisioned (Vanilla Kubernetes)',
  provisioned_eks: 'Provisioned (EKS)',
};

export function sourceLabel(source?: string): string {
  return (source && sources[source]) || source || '—';
}

export function isProvisioned(source?: string): boolean {
  return source === 'provisioned_vanilla' || source === 'provisioned_eks';
}
