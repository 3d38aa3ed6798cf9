import type { ClusterKubeconfig } from '../api/client';

/** The file a cluster's kubeconfig is saved as: `<cluster>.kubeconfig`. */
export function kubeconfigFileName(clusterName: string): string {
  // Cluster names are DNS labels; anything else is kept out of a file name.
  const safe = clusterName.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^\.+/, '') || 'cluster';
  return `${safe}.kubeconfig`;
}

/** The file to save for an answer of GET /clusters/{id}/kubeconfig. */
export function kubeconfigDownload(k: ClusterKubeconfig, clusterName: string): { fileName: string; blob: Blob } {
  return { fileName: kubeconfigFileName(clusterName), blob: new Blob([k.kubeconfig], { type: 'application/yaml' }) };
}

/** Saves blob as fileName through the browser's download. */
export function saveFile(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own copy once click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
