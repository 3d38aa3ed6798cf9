import { describe, expect, it } from 'vitest';
import { ago, watchCommands } from './watchCommands';

describe('watchCommands', () => {
  it('shows the Terraform Job logs only when the API names a Job', () => {
    expect(watchCommands({ id: 'c1', source: 'provisioned', terraformJob: 'provision-c1' })).toEqual([
      'kubectl get hostcluster c1 -n kubeopera-system -w',
      'kubectl logs -n kubeopera-provisioning job/provision-c1 -f',
    ]);
  });

  it('leaves the logs line out for a provisioned cluster whose terraform ran in the plugin (no Job)', () => {
    const lines = watchCommands({ id: 'c2', source: 'provisioned' });
    expect(lines).toEqual(['kubectl get hostcluster c2 -n kubeopera-system -w']);
    expect(lines.join('\n')).not.toContain('kubectl logs');
  });

  it('offers no HostCluster to a self-registered cluster, which has none', () => {
    expect(watchCommands({ id: 'h', source: 'self_registered' })).toEqual(['kubectl get nodes']);
  });
});

describe('ago', () => {
  const now = new Date('2026-12-01T12:00:00Z');
  it.each([
    ['2026-12-01T11:59:55Z', '5 s ago'],
    ['2026-12-01T11:57:00Z', '3 min ago'],
    ['2026-12-01T10:00:00Z', '2 h ago'],
    ['2026-11-27T12:00:00Z', '4 d ago'],
    ['2026-12-01T12:00:09Z', '0 s ago'],
  ])('words %s as %s', (when, want) => {
    expect(ago(when, now)).toBe(want);
  });
});
