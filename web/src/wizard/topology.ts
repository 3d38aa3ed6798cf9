/**
 * The product's words for the topologies the AWS plugins declare
 * (aws-vanilla's "kubeadm", aws-eks's "eks"); any other plugin's topology
 * shows as the plugin names it.
 */
const topologyLabels: Record<string, string> = {
  kubeadm: 'Vanilla Kubernetes (kubeadm)',
  eks: 'Managed (EKS)',
};

export function topologyLabel(topology: string): string {
  return topologyLabels[topology] ?? topology;
}
