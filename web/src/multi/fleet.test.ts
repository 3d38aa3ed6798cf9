import { describe, expect, it } from 'vitest';
import type { OverviewRow } from '../api/client';
import { clusterBadgeValues } from '../api/schema';
import { badgeFill, statusBadges } from './fleet';
import { money, pct, ratio } from './format';

const row = (id: string, health: OverviewRow['badge'], statusBadge?: OverviewRow['statusBadge']): OverviewRow => ({
  id, name: id, badge: health, statusBadge, reachable: true, cpuPercent: 10, memoryPercent: 10, monthlyCost: 0,
  nodesReady: 1, nodesTotal: 1, score: 90, unpricedNodes: 0,
});

describe('treemap colours', () => {
  it('colours each cluster by its status badge from the overview, whatever its health', () => {
    const rows = [row('a', 'green', 'red'), row('b', 'green', 'amber'), row('registry:x', 'green')];
    const badges = statusBadges(rows);
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
