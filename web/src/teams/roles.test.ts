import { describe, expect, it } from 'vitest';
import { memberRoleValues } from '../api/schema';
import { allows, chosenTeam, teamsToMakeIn } from './roles';

describe('allows', () => {
  it('ranks the team roles as the document lists them, platform-admin above all', () => {
    expect(memberRoleValues).toEqual(['viewer', 'operator', 'admin']);
    expect(allows('viewer', 'viewer')).toBe(true);
    expect(allows('viewer', 'operator')).toBe(false);
    expect(allows('operator', 'operator')).toBe(true);
    expect(allows('operator', 'admin')).toBe(false);
    expect(allows('admin', 'operator')).toBe(true);
    expect(allows('admin', 'platform-admin')).toBe(false);
    expect(allows('platform-admin', 'admin')).toBe(true);
  });
  it('allows nothing for no role, member (only what teams give) or an unknown one', () => {
    for (const r of [undefined, '', 'member', 'root']) expect(allows(r, 'viewer')).toBe(false);
  });
});


describe('teamsToMakeIn', () => {
  const teams = [
    { name: 'default', role: 'viewer' as const },
    { name: 'payments', role: 'admin' as const },
    { name: 'search', role: 'operator' as const },
    { name: 'edge' },
    { name: 'ml', role: 'admin' as const },
  ];
  it('offers a team admin only the teams they administer, in the order listed', () => {
    expect(teamsToMakeIn(teams, false)).toEqual(['payments', 'ml']);
  });
  it('offers a platform admin every team, member or not', () => {
    expect(teamsToMakeIn(teams, true)).toEqual(['default', 'payments', 'search', 'edge', 'ml']);
  });
  it('offers nothing to someone who administers no team', () => {
    expect(teamsToMakeIn(teams.filter((t) => t.role !== 'admin'), false)).toEqual([]);
  });
});

describe('chosenTeam', () => {
  it('keeps a pick that is offered', () => expect(chosenTeam('ml', ['default', 'ml'])).toBe('ml'));
  it('starts at the default team when it is offered', () => expect(chosenTeam('', ['ml', 'default'])).toBe('default'));
  it('starts at the first team offered when the default is not (a team admin elsewhere)', () => {
    expect(chosenTeam('', ['payments', 'ml'])).toBe('payments');
  });
  it('drops a pick that is no longer offered', () => expect(chosenTeam('gone', ['payments'])).toBe('payments'));
  it('falls back to the default team while nothing is known', () => expect(chosenTeam('', [])).toBe('default'));
});
