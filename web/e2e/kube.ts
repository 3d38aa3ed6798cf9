// The few Kubernetes API calls the browser tests need, made with the
// client certificate of a sandbox's admin kubeconfig (no kubectl needed).
import { readFileSync } from 'node:fs';
import { request } from 'node:https';

type Access = { server: URL; ca: Buffer; cert: Buffer; key: Buffer };

function field(kubeconfig: string, name: string): string {
  const m = new RegExp(`^\\s*${name}:\\s*(\\S+)\\s*$`, 'm').exec(kubeconfig);
  if (!m) throw new Error(`kubeconfig has no ${name}`);
  return m[1];
}

function access(path: string): Access {
  const k = readFileSync(path, 'utf8');
  const data = (name: string) => Buffer.from(field(k, name), 'base64');
  return { server: new URL(field(k, 'server')), ca: data('certificate-authority-data'),
    cert: data('client-certificate-data'), key: data('client-key-data') };
}

function call(a: Access, method: string, path: string, body: unknown, contentType = 'application/json'): Promise<void> {
  const payload = JSON.stringify(body);
  return new Promise((ok, fail) => {
    const req = request(new URL(path, a.server), {
      method, ca: a.ca, cert: a.cert, key: a.key,
      headers: { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) },
    }, (resp) => {
      let text = '';
      resp.on('data', (d) => (text += d));
      resp.on('end', () => ((resp.statusCode ?? 0) < 300 ? ok() : fail(new Error(`${method} ${path}: ${resp.statusCode} ${text}`))));
    });
    req.on('error', fail);
    req.end(payload);
  });
}

/**
 * Adds n Ready nodes whose provider IDs place them in region's zones, as
 * AWS's cloud controller manager would. Nothing runs on them: they are
 * tainted NoSchedule, and no node controller marks them NotReady.
 */
export async function addNodes(kubeconfig: string, region: string, n: number) {
  const a = access(kubeconfig);
  const capacity = { cpu: '4', memory: '16Gi', pods: '110' };
  for (let i = 1; i <= n; i++) {
    const name = `e2e-node-${i}`;
    const zone = `${region}${'abc'[(i - 1) % 3]}`;
    await call(a, 'POST', '/api/v1/nodes', {
      apiVersion: 'v1', kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/region': region, 'topology.kubernetes.io/zone': zone } },
      spec: { providerID: `aws:///${zone}/i-0e2e00000000000${i}`, taints: [{ key: 'e2e.kubeopera.io/static', value: 'true', effect: 'NoSchedule' }] },
    });
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await call(a, 'PATCH', `/api/v1/nodes/${name}/status`, {
      status: {
        capacity, allocatable: capacity,
        nodeInfo: { kubeletVersion: 'v1.37.2', operatingSystem: 'linux', architecture: 'amd64' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'simulated node', lastHeartbeatTime: now, lastTransitionTime: now }],
      },
    }, 'application/merge-patch+json');
  }
}
