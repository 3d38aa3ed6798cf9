// What each user action that ends access says before it runs: every one
// of them ends the user's sessions and revokes their tokens.
import type { User } from '../api/client';

export type AccessAction = 'disable' | 'reset' | 'end' | 'delete';

export type Confirmation = { title: string; confirm: string; text: string };

/** The question asked before action on u: what it ends and whether it can be undone. */
export function confirmationOf(action: AccessAction, u: Pick<User, 'username'>): Confirmation {
  const n = u.username;
  const ends = `Every session of ${n} ends and every token of theirs is revoked at once; scripts using those tokens stop working.`;
  switch (action) {
    case 'disable':
      return { title: `Disable ${n}?`, confirm: 'Disable user', text: `${ends} ${n} cannot sign in until enabled again; the revoked tokens stay revoked.` };
    case 'reset':
      return { title: `Reset the password of ${n}?`, confirm: 'Reset password', text: `${ends} A new password is generated and shown once; ${n} chooses their own at the next sign-in.` };
    case 'end':
      return { title: `Sign out ${n} everywhere?`, confirm: 'Sign out and revoke tokens', text: `${ends} ${n} can sign in again.` };
    case 'delete':
      return { title: `Delete ${n}?`, confirm: 'Delete user', text: `${ends} The user is removed; this cannot be undone.` };
  }
}
