import { describe, expect, it } from 'vitest';
import { addableUsers, sourceLabel } from './members';

describe('addableUsers', () => {
  const users = [{ id: 'u3', username: 'zoe' }, { id: 'u1', username: 'ada' }, { id: 'u2', username: 'bob' }];
  it('offers the users who are not members yet, by username', () => {
    expect(addableUsers(users, [{ user_id: 'u2' }]).map((u) => u.username)).toEqual(['ada', 'zoe']);
  });
  it('offers nobody when everyone is a member', () => {
    expect(addableUsers(users, users.map((u) => ({ user_id: u.id })))).toEqual([]);
  });
});

describe('sourceLabel', () => {
  it('says where a role came from', () => {
    expect(sourceLabel('local')).toBe('Set here');
    expect(sourceLabel('oidc')).toBe('Identity provider groups');
    expect(sourceLabel('scim')).toBe('scim');
  });
});
