// The pure parts of a team's member list, unit-tested.
import type { Member, User } from '../api/client';

/** The users who can be added to a team: those not yet members, by username. */
export function addableUsers<U extends Pick<User, 'id' | 'username'>>(users: U[], members: Pick<Member, 'user_id'>[]): U[] {
  const in_ = new Set(members.map((m) => m.user_id));
  return users.filter((u) => !in_.has(u.id)).sort((a, b) => a.username.localeCompare(b.username));
}

/** Where a member's role came from, in words: set here, or from the identity provider's groups at sign-in. */
export function sourceLabel(source: string): string {
  switch (source) {
    case 'local': return 'Set here';
    case 'oidc': return 'Identity provider groups';
    default: return source || '—';
  }
}

/** What each team role lets a member do, for the role pickers' help. */
export const roleHelp = 'viewer reads; operator also scales, upgrades and retries; admin also connects, provisions, tears down, disconnects and manages the team\'s credentials.';
