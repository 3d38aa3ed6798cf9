import type { ClusterDetail } from '../api/client';

/** The namespace sdk/terraform's Job runner works in (the API names the Job, not it). */
const PROVISIONING_NAMESPACE = 'kubeopera-provisioning';

/**
 * The kubectl lines that follow a cluster from a terminal: its HostCluster
 * always, the Terraform Job's logs only when terraform ran as a Job (it
 * leaves none when it ran in the plugin's own process).
 */
export function watchCommands(c: Pick<ClusterDetail, 'id' | 'source' | 'terraformJob'>): string[] {
  if (c.source === 'self_registered') return ['kubectl get nodes'];
  const out = [`kubectl get hostcluster ${c.id} -n kubeopera-system -w`];
  if (c.terraformJob) out.push(`kubectl logs -n ${PROVISIONING_NAMESPACE} job/${c.terraformJob} -f`);
  return out;
}

/** "5 s ago", "3 min ago", "2 h ago", "4 d ago": how long before now a moment was. */
export function ago(when: string, now: Date = new Date()): string {
  const s = Math.max(0, Math.round((now.getTime() - new Date(when).getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}
