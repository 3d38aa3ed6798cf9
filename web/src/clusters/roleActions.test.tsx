// What a viewer, operator and admin of a cluster's team see on its card and
// its page: no button the role does not allow (the server still decides).
import { describe, expect, it } from 'vitest';
import type { Cluster, Provider } from '../api/client';
import { providerKeys } from '../credentials/queries';
import { renderWith } from '../testkit/render';
import { ClusterCard } from './ClusterCard';
import { DayTwoActions } from './DayTwoActions';

// The server's actions as it answers them for a caller allowed
// everything now, or refused everything for reason.
type Actions = NonNullable<Cluster['actions']>;
const every = (a: { allowed: boolean; reason?: string }): Actions => ({
  scale: a, upgrade: a, retry: a, teardown: a, disconnect: a, kubeconfig: a, adminKubeconfig: a,
});
const allowed = every({ allowed: true });
const asViewer = { ...every({ allowed: false, reason: 'needs the operator role on team "payments"; you have viewer' }), kubeconfig: { allowed: true } };

const cluster = (role: string | undefined, over: Partial<Cluster> = {}): Cluster => ({
  id: 'c1', name: 'prod', team: 'payments', badge: 'green', status: 'Ready', source: 'provisioned', plugin: 'local',
  provider: 'local', region: '', kubernetes_version: 'v1.35.1', message: '', node_count: 1, ready_node_count: 1,
  is_host: false, created_at: '', updated_at: '', actions: allowed, ...over, role: role as Cluster['role'],
});

// A plugin that can do everything, so only the role decides.
const providers = [providerKeys.all, {
  items: [{ name: 'local', capabilities: ['provision', 'scale', 'upgrade', 'destroy'], upgrades: [{ from: '1.35', to: ['1.36'] }] } as Partial<Provider>],
  skipped: [],
}] as const;

const card = (role?: string) => renderWith(<ClusterCard cluster={cluster(role)} withHealth={false} canTeardown
  onDisconnect={() => {}} onTeardown={() => {}} />);
const page = (role?: string, over: Partial<Cluster> = {}) => renderWith(<DayTwoActions cluster={cluster(role, over)} />, [[...providers]]);

describe('ClusterCard', () => {
  it('shows the cluster\'s team', () => {
    expect(card('viewer')).toContain('<dd data-testid="cluster-team">payments</dd>');
  });
  it.each(['viewer', 'operator', undefined])('offers a %s neither Disconnect nor Tear down', (role) => {
    const html = card(role);
    expect(html).not.toContain('Disconnect');
    expect(html).not.toContain('Tear down');
  });
  it.each(['admin', 'platform-admin'])('offers a team %s Disconnect and Tear down', (role) => {
    const html = card(role);
    expect(html).toContain('>Disconnect</button>');
    expect(html).toContain('>Tear down</button>');
  });
});

describe('DayTwoActions', () => {
  it('shows a viewer no changes at all, a Failed cluster\'s Retry included', () => {
    expect(page('viewer', { actions: asViewer })).toBe('');
    expect(page('viewer', { status: 'Failed', badge: 'red', actions: asViewer })).toBe('');
  });
  it('offers an operator Scale, Upgrade and Retry but not Tear down', () => {
    const html = page('operator');
    expect(html).toContain('>Scale</button>');
    expect(html).toContain('>Upgrade</button>');
    expect(html).not.toContain('Tear down');
    expect(page('operator', { status: 'Failed', badge: 'red' })).toContain('Retry</button>');
  });
  it('disables what the server\'s actions refuse now, with its reason', () => {
    const html = page('admin', { status: 'Updating', actions: { ...allowed, teardown: { allowed: false, reason: 'a change of its nodes or version is running' } } });
    expect(html).toMatch(/<button[^>]*disabled=""[^>]*title="a change of its nodes or version is running"[^>]*>Tear down<\/button>/);
  });
  it('offers Retry only where the server\'s actions allow it', () => {
    expect(page('operator', { status: 'Failed', badge: 'red', actions: { ...allowed, retry: { allowed: false, reason: 'TERMINAL' } } })).not.toContain('Retry</button>');
  });
  it('offers an admin Tear down as well', () => {
    const html = page('admin');
    expect(html).toContain('>Scale</button>');
    expect(html).toContain('>Tear down</button>');
  });
});
