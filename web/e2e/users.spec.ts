// The Users page against the real server: a platform admin adds a user
// (the generated password is shown once), the user chooses a new password
// and signs in, the admin disables them (after a confirmation, since it
// revokes their tokens) and their next request fails; a
// viewer gets neither the page nor its link.
import { admin, viewer } from './stack';
import { expect, expectAccessible, shoot, signIn, test } from './fixtures';

test('users: add with a one-time password, disable stops the user at once, viewers are kept out', async ({ page, browser, baseURL }) => {
  await signIn(page, admin, '/users');
  await page.getByLabel('Username').fill('e2e-ada');
  await page.getByLabel('Email').fill('e2e-ada@example.com');
  await page.getByRole('button', { name: 'Add user' }).click();
  const generated = (await page.getByTestId('one-time-password').textContent())?.trim() ?? '';
  expect(generated.length).toBeGreaterThanOrEqual(16);
  const row = page.getByRole('row').filter({ hasText: 'e2e-ada' });
  await expect(row).toContainText('must choose a new password');
  await expectAccessible(page);
  await shoot(page, 'users');

  // The user signs in with the generated password; the sign-in page asks
  // for a new one, sets it and signs in with it.
  const ada = { username: 'e2e-ada', password: 'e2e-ada-chosen-password-42' };
  const other = await browser.newContext({ baseURL });
  const adaPage = await other.newPage();
  await adaPage.goto('/signin?next=/clusters');
  await adaPage.getByLabel('Username').fill(ada.username);
  await adaPage.getByLabel('Password', { exact: true }).fill(generated);
  await adaPage.getByRole('button', { name: 'Sign in' }).click();
  await expect(adaPage.getByText('Choose a new password before signing in')).toBeVisible();
  await expectAccessible(adaPage);
  await adaPage.getByLabel('New password', { exact: true }).fill(ada.password);
  await adaPage.getByLabel('New password again').fill(ada.password);
  await adaPage.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(adaPage).toHaveURL(/^[^?]*\/clusters$/);
  expect((await other.request.get('/api/v1/session')).status()).toBe(200);

  // Disabling revokes tokens: it asks first, and Cancel changes nothing.
  await row.getByRole('button', { name: 'Disable e2e-ada' }).click();
  const ask = page.getByRole('dialog', { name: 'Disable e2e-ada?' });
  await expect(ask).toContainText('every token of theirs is revoked');
  await expectAccessible(page);
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await expect(ask).toHaveCount(0);
  expect((await other.request.get('/api/v1/session')).status()).toBe(200);
  await row.getByRole('button', { name: 'Disable e2e-ada' }).click();
  await ask.getByRole('button', { name: 'Disable user' }).click();
  await expect(row).toContainText('Disabled');
  expect((await other.request.get('/api/v1/session')).status()).toBe(401);
  await adaPage.reload();
  await expect(adaPage).toHaveURL(/\/signin/);
  await other.close();

  await row.getByRole('button', { name: 'Delete e2e-ada' }).click();
  await page.getByRole('dialog', { name: 'Delete e2e-ada?' }).getByRole('button', { name: 'Delete user' }).click();
  await expect(row).toHaveCount(0);

  const viewerContext = await browser.newContext({ baseURL });
  const viewerPage = await viewerContext.newPage();
  await signIn(viewerPage, viewer, '/users');
  await expect(viewerPage.getByRole('heading', { name: 'Platform admins only' })).toBeVisible();
  await expect(viewerPage.getByRole('link', { name: 'Users' })).toHaveCount(0);
  await viewerContext.close();
});
