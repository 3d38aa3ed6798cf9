// The Teams page against the real server: a platform admin creates a team,
// adds a member with a role and changes it, is refused deleting the
// default team and a team that owns a credential (the server's 409 reason
// shown in the dialog); the member, an admin of that team only, may make
// clusters and credentials there (no team picker with one choice) but gets
// neither Teams nor Users; then the member is removed and the team
// deleted, each after a question.
import { admin } from './stack';
import { apiAs, expect, expectAccessible, shoot, signIn, test } from './fixtures';

test('teams: create, members with roles, delete refused for the default team, what a team admin sees', async ({ page, browser, baseURL }) => {
  await signIn(page, admin, '/teams');
  await expect(page.getByRole('link', { name: 'Teams' })).toBeVisible();
  const teams = page.getByRole('table', { name: 'Teams' });
  await expect(teams.getByRole('row').filter({ hasText: 'default' })).toBeVisible();

  // A user who is only what their teams make them.
  const carol = { username: 'e2e-carol', password: 'e2e-carol-chosen-password-42' };
  const made = await apiAs(page, 'POST', '/api/v1/users',
    { username: carol.username, email: 'e2e-carol@example.com', role: 'member', password: 'e2e-carol-first-password-42' });
  expect(made.status()).toBe(201);

  await page.getByLabel('Team name').fill('E2E Payments');
  await page.getByRole('button', { name: 'Create team' }).click();
  await expect(page.getByText('use 1 to 63 lowercase letters')).toBeVisible();
  await page.getByLabel('Team name').fill('e2e-payments');
  await page.getByRole('button', { name: 'Create team' }).click();
  const row = teams.getByRole('row').filter({ hasText: 'e2e-payments' });
  await expect(row).toBeVisible();

  // Creating opens the new team's members.
  const members = page.getByRole('region', { name: 'Members of e2e-payments' });
  await expect(members).toContainText('No members yet');
  await members.getByRole('combobox', { name: 'User', exact: true }).selectOption({ label: carol.username });
  await members.getByLabel('Team role').selectOption('operator');
  await members.getByRole('button', { name: 'Add member' }).click();
  const carolRow = members.getByRole('row').filter({ hasText: carol.username });
  await expect(carolRow.getByLabel(`Role of ${carol.username}`)).toHaveValue('operator');
  await expect(row.getByRole('cell').nth(0)).toHaveText('1');
  await carolRow.getByLabel(`Role of ${carol.username}`).selectOption('admin');
  await expect.poll(async () => (await (await apiAs(page, 'GET', '/api/v1/teams/e2e-payments/members')).json()).items[0]?.role).toBe('admin');
  await expectAccessible(page);
  await shoot(page, 'teams');

  // The default team cannot go: the server says why, in the dialog.
  await teams.getByRole('row').filter({ hasText: 'default' }).getByRole('button', { name: 'Delete team default' }).click();
  const refuse = page.getByRole('dialog', { name: 'Delete team default?' });
  await refuse.getByRole('button', { name: 'Delete team' }).click();
  await expect(refuse.getByRole('alert')).toContainText('cannot be deleted');
  await expectAccessible(page);
  await refuse.getByRole('button', { name: 'Cancel' }).click();
  await expect(refuse).toHaveCount(0);

  // A platform admin makes clusters in any team: the wizard asks which.
  await page.goto('/clusters');
  await page.getByRole('button', { name: 'New Cluster' }).click();
  const wizard = page.getByRole('dialog', { name: 'Cluster Setup Wizard' });
  await expect(wizard.getByRole('combobox', { name: 'Team', exact: true })).toHaveValue('default');
  await expect(wizard.getByRole('combobox', { name: 'Team', exact: true }).locator('option')).toHaveText(['default', 'e2e-payments']);
  await wizard.getByRole('button', { name: 'Close' }).click();

  // Carol, admin of e2e-payments only: she may make clusters there (one
  // choice, so no picker), and sees neither Teams nor Users.
  const other = await browser.newContext({ baseURL });
  const changed = await other.request.post('/api/v1/session/password',
    { data: { username: carol.username, password: 'e2e-carol-first-password-42', newPassword: carol.password } });
  expect(changed.status()).toBe(204);
  const carolPage = await other.newPage();
  await signIn(carolPage, carol, '/clusters');
  await expect(carolPage.getByRole('link', { name: 'Teams' })).toHaveCount(0);
  await expect(carolPage.getByRole('link', { name: 'Users' })).toHaveCount(0);
  await expect(carolPage.getByRole('link', { name: 'Credentials' })).toBeVisible();
  await carolPage.getByRole('button', { name: 'New Cluster' }).click();
  const carolWizard = carolPage.getByRole('dialog', { name: 'Cluster Setup Wizard' });
  await expect(carolWizard.getByRole('textbox', { name: 'Name', exact: true })).toBeVisible();
  await expect(carolWizard.getByRole('combobox', { name: 'Team', exact: true })).toHaveCount(0);
  await expectAccessible(carolPage);
  await carolWizard.getByRole('button', { name: 'Close' }).click();
  await carolPage.goto('/teams');
  await expect(carolPage.getByRole('heading', { name: 'Platform admins only' })).toBeVisible();

  // She manages her team's credentials: one team, so no picker; it is e2e-payments'.
  await carolPage.getByRole('link', { name: 'Credentials' }).click();
  await expect(carolPage.getByRole('combobox', { name: 'Team', exact: true })).toHaveCount(0);
  await carolPage.getByLabel('Label').fill('e2e-carol-key');
  await carolPage.getByLabel('Access key ID').fill('AKIAIOSFODNN7E2ECAR9');
  await carolPage.getByLabel('Secret access key').fill('wJalrXUtnFEMI/K7MDENG/bPxRfiCYE2ECAROL12');
  await carolPage.getByRole('button', { name: 'Save credential' }).click();
  const key = carolPage.getByRole('row').filter({ hasText: 'e2e-carol-key' });
  await expect(key).toContainText('e2e-payments');
  await expect(key.getByRole('button', { name: 'Delete e2e-carol-key' })).toBeVisible();
  await expectAccessible(carolPage);

  // A team that owns something cannot go either; the server counts it.
  await page.goto('/teams');
  await expect(row.getByRole('cell').nth(2)).toHaveText('1');
  await row.getByRole('button', { name: 'Delete team e2e-payments' }).click();
  const owns = page.getByRole('dialog', { name: 'Delete team e2e-payments?' });
  await owns.getByRole('button', { name: 'Delete team' }).click();
  await expect(owns.getByRole('alert')).toContainText('still owns 1 cloud credentials');
  await owns.getByRole('button', { name: 'Cancel' }).click();
  const keys = (await (await apiAs(page, 'GET', '/api/v1/credentials')).json()).items as { id: string; label: string }[];
  const carolKey = keys.find((k) => k.label === 'e2e-carol-key');
  expect((await apiAs(page, 'DELETE', `/api/v1/credentials/${carolKey?.id}`)).status()).toBe(204);

  // Removed, she no longer may make clusters anywhere.
  await page.reload();
  await row.getByRole('button', { name: 'Members of e2e-payments' }).click();
  await carolRow.getByRole('button', { name: `Remove ${carol.username} from e2e-payments` }).click();
  const remove = page.getByRole('dialog', { name: `Remove ${carol.username} from e2e-payments?` });
  await expect(remove).toContainText('loses the admin role');
  await remove.getByRole('button', { name: 'Remove member' }).click();
  await expect(carolRow).toHaveCount(0);
  await carolPage.goto('/clusters');
  await expect(carolPage.getByRole('heading', { name: 'Clusters' })).toBeVisible();
  await expect(carolPage.getByRole('button', { name: 'New Cluster' })).toHaveCount(0);
  await other.close();

  await row.getByRole('button', { name: 'Delete team e2e-payments' }).click();
  await page.getByRole('dialog', { name: 'Delete team e2e-payments?' }).getByRole('button', { name: 'Delete team' }).click();
  await expect(row).toHaveCount(0);
  expect((await apiAs(page, 'DELETE', `/api/v1/users/${(await made.json()).user.id}`)).status()).toBe(204);
});
