import { describe, expect, it } from 'vitest';
import { confirmationOf, type AccessAction } from './endsAccess';

describe('confirmationOf', () => {
  const actions: AccessAction[] = ['disable', 'reset', 'end', 'delete'];
  it.each(actions)('%s says that the user\'s tokens are revoked, naming the user', (a) => {
    const c = confirmationOf(a, { username: 'ada' });
    expect(c.text).toContain('every token of theirs is revoked');
    expect(c.title).toContain('ada');
  });
  it('only delete says it cannot be undone', () => {
    const final = actions.filter((a) => confirmationOf(a, { username: 'ada' }).text.includes('cannot be undone'));
    expect(final).toEqual(['delete']);
  });
  it('gives each action its own confirm button', () => {
    const labels = new Set(actions.map((a) => confirmationOf(a, { username: 'ada' }).confirm));
    expect(labels.size).toBe(actions.length);
  });
});
