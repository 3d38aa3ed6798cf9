// The card and the page show exactly what the server's `actions` say: an
// action not offered is left out, one offered but not allowed now is
// disabled with the server's reason, and nothing is decided here from the
// role or the plugin (the server's TestActionsFollowTheRoleAndThePhase and
// TestActionsCarryWhatThePluginDeclares hold those rules).
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../api/client';
import { renderWith } from '../testkit/render';
import { ClusterCard } from './ClusterCard';
import { DayTwoActions } from './DayTwoActions';

type Actions = NonNullable<Cluster['actions']>;
type Act = { allowed: boolean; offered: boolean; reason?: string };
const yes: Act = { allowed: true, offered: true };
const never = (reason: string): Act => ({ allowed: false, offered: false, reason });
const notNow = (reason: string): Act => ({ allowed: false, offered: true, reason });
const actions = (over: Partial<Record<keyof Actions, Act>> = {}, targets = ['1.36']): Actions => {
  const a = { scale: yes, upgrade: yes, retry: yes, teardown: yes, disconnect: yes, kubeconfig: yes, adminKubeconfig: yes, ...over };
  return { ...a, scale: { ...a.scale, min: 1, max: 10 }, upgrade: { ...a.upgrade, targets } };
};
// What the server answers a viewer: every change never offered.
const role = 'needs the operator role on team "payments"; you have viewer';
const asViewer = actions({ scale: never(role), upgrade: never(role), retry: never(role), teardown: never(role), disconnect: never(role) });

const cluster = (a: Actions, over: Partial<Cluster> = {}): Cluster => ({
  id: 'c1', name: 'prod', team: 'payments', badge: 'green', status: 'Ready', source: 'provisioned', plugin: 'local',
  provider: 'local', region: '', kubernetes_version: 'v1.35.1', message: '', node_count: 1, ready_node_count: 1,
  is_host: false, created_at: '', updated_at: '', actions: a, ...over,
});

const card = (a: Actions) => renderWith(<ClusterCard cluster={cluster(a)} withHealth={false} onDisconnect={() => {}} onTeardown={() => {}} />);
const page = (a: Actions, over: Partial<Cluster> = {}) => renderWith(<DayTwoActions cluster={cluster(a, over)} />);

describe('ClusterCard', () => {
  it('shows the cluster\'s team', () => {
    expect(card(asViewer)).toContain('<dd data-testid="cluster-team">payments</dd>');
  });
  it('shows neither Disconnect nor Tear down where the server offers neither', () => {
    const html = card(asViewer);
    expect(html).not.toContain('Disconnect');
    expect(html).not.toContain('Tear down');
  });
  it('shows Disconnect alone for a cluster the server offers no teardown of', () => {
    const html = card(actions({ teardown: never('KubeOpera did not provision it: disconnect it instead') }));
    expect(html).toContain('>Disconnect</button>');
    expect(html).not.toContain('Tear down');
  });
  it('disables Tear down while it is not allowed, with the server\'s reason', () => {
    expect(card(actions({ teardown: notNow('it is TearingDown') })))
      .toMatch(/<button[^>]*disabled=""[^>]*title="it is TearingDown"[^>]*>Tear down<\/button>/);
  });
});

describe('DayTwoActions', () => {
  it('shows nothing where the server offers no change, a Failed cluster\'s Retry included', () => {
    expect(page(asViewer)).toBe('');
    expect(page(asViewer, { status: 'Failed', badge: 'red' })).toBe('');
  });
  it('shows Scale and Upgrade, and Retry where allowed, but not a teardown never offered', () => {
    const html = page(actions({ teardown: never('needs the admin role on team "payments"; you have operator') }));
    expect(html).toContain('>Scale</button>');
    expect(html).toContain('>Upgrade</button>');
    expect(html).toContain('Retry</button>');
    expect(html).not.toContain('Tear down');
  });
  it('leaves out what the plugin cannot do', () => {
    const html = page(actions({ upgrade: never('its provider plugin local cannot upgrade a cluster') }));
    expect(html).toContain('>Scale</button>');
    expect(html).not.toContain('Upgrade');
  });
  it('disables what the server refuses now, with its reason, and says why once', () => {
    const now = notNow('it is Provisioning: change it once it is Ready');
    const html = page(actions({ scale: now, upgrade: now }), { status: 'Provisioning' });
    expect(html).toMatch(/<button[^>]*disabled=""[^>]*title="it is Provisioning: change it once it is Ready"[^>]*>Scale<\/button>/);
    expect(html).toContain('Scale and upgrade are not possible now: it is Provisioning: change it once it is Ready.');
  });
  it('shows Retry only where the server allows it', () => {
    expect(page(actions({ retry: notNow('not Failed') }))).not.toContain('Retry</button>');
  });
});
