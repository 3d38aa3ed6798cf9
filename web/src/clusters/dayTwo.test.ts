import { describe, expect, it } from 'vitest';
import { sameVersion, upgradeTargets } from './dayTwo';

const paths = [
  { from: '1.35', to: ['1.36'] },
  { from: '1.36', to: ['1.37'] },
];

describe('upgradeTargets', () => {
  it('offers the versions of the path whose from names the cluster minor', () => {
    expect(upgradeTargets(paths, 'v1.35.4')).toEqual(['1.36']);
    expect(upgradeTargets(paths, '1.36')).toEqual(['1.37']);
  });
  it('offers nothing for a version without a path, or an unknown one', () => {
    expect(upgradeTargets(paths, 'v1.37.2')).toEqual([]);
    expect(upgradeTargets(paths, '')).toEqual([]);
  });
});

describe('sameVersion', () => {
  it('reads a minor as every patch of it, never another minor', () => {
    expect(sameVersion('1.35', 'v1.35.4')).toBe(true);
    expect(sameVersion('1.3', '1.35.4')).toBe(false);
  });
});

