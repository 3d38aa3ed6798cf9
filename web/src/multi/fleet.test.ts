import { describe, expect, it } from 'vitest';
import type { Cluster, OverviewRow } from '../api/client';
import { clusterBadgeValues } from '../api/schema';
import { badgeFill, readyClusters, statusBadges } from './fleet';
import { money, pct, ratio } from './format';

const row = (id: string, health: OverviewRow['badge']): OverviewRow => ({
  id, name: id, badge: health, reachable: true, cpuPercent: 10, memoryPercent: 10, monthlyCost: 0,
  nodesReady: 1, nodesTotal: 1, score: 90, unpricedNodes: 0,
});

const cluster = (id: string, status: Cluster['status'], badge: Cluster['badge']): Cluster => ({
  id, name: id, status, badge, created_at: '', updated_at: '', is_host: false, kubernetes_version: 'v1.37.2', message: '',
  node_count: 1, ready_node_count: 1, provider: 'aws', region: 'eu-north-1', source: 'connected_existing',
});

describe('Healthy Clusters', () => {
  it('counts the clusters whose status is Ready, not those with a green health badge', () => {
    const rows = [row('a', 'green'), row('b', 'green'), row('c', 'green'), row('d', 'red')];
    const clusters = [cluster('a', 'Ready', 'green'), cluster('b', 'InstallingKubeOpera', 'amber'), cluster('c', 'Failed', 'red'),
      cluster('d', 'Ready', 'green')];
    expect(readyClusters(rows, clusters)).toBe(2); // three have a green health badge
    expect(ratio(readyClusters(rows, clusters), rows.length)).toBe('2/4');
  });

  it('does not count a Ready cluster the overview leaves out, nor a row the API does not list', () => {
    expect(readyClusters([row('a', 'green'), row('host', 'green')], [cluster('a', 'Failed', 'red'), cluster('z', 'Ready', 'green')])).toBe(0);
  });
});

describe('treemap colours', () => {
  it('colours each cluster by its status badge from the clusters API, whatever its health', () => {
    const rows = [row('a', 'green'), row('b', 'green'), row('registry:x', 'green')];
    const badges = statusBadges(rows, [cluster('a', 'Failed', 'red'), cluster('b', 'Provisioning', 'amber')]);
    expect([...badges.entries()]).toEqual([['a', 'red'], ['b', 'amber'], ['registry:x', 'gray']]);
    expect(badgeFill(badges.get('a'))).not.toBe(badgeFill('green'));
  });

  it('gives every badge of the document its own fill, and anything else gray', () => {
    const fills = clusterBadgeValues.map(badgeFill);
    expect(new Set(fills).size).toBe(clusterBadgeValues.length);
    for (const f of fills) expect(f).toMatch(/^#[0-9a-f]{6}$/);
    expect(badgeFill('unknown')).toBe(badgeFill('gray'));
    expect(badgeFill(undefined)).toBe(badgeFill('gray'));
  });
});

describe('format', () => {
  it('shows a ratio, a missing part as 0', () => {
    expect(ratio(3, 5)).toBe('3/5');
    expect(ratio(undefined, 4)).toBe('0/4');
  });

  it('shows percentages to one decimal and money in its currency', () => {
    expect(pct(12.345)).toBe('12.3%');
    expect(pct(undefined)).toBe('0.0%');
    expect(money(1234.5, 'USD')).toBe('$1,234.50');
    expect(money(10, '')).toBe('$10.00');
  });
});
