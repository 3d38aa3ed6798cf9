// The audit page against a fresh `kubeopera dev`: a platform admin signs in
// and finds that sign-in in the log, with its request ID; filters by actor,
// target and time; pages as the API pages (50 a page); a viewer gets
// neither the page nor its link. Axe at 1280 and 390 px.
import { admin, viewer } from './stack';
import { apiAs, expect, expectAccessible, shoot, signIn, test } from './fixtures';

/** A time as an <input type="datetime-local"> takes it, in the browser's (this machine's) zone. */
function local(t: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}T${p(t.getHours())}:${p(t.getMinutes())}`;
}

test('audit: the sign-in is listed with its request ID; filters by actor, target and time; pages of 50; viewers are kept out', async ({ page, browser, baseURL }) => {
  const started = new Date(Date.now() - 60_000);
  await signIn(page, admin, '/audit');
  await expect(page.getByRole('link', { name: 'Audit log' })).toBeVisible();
  const table = page.getByRole('table', { name: 'Audit events, newest first' });
  const rows = table.locator('tbody tr');
  const mySignIn = rows.filter({ hasText: 'POST /api/v1/session' }).filter({ hasText: admin.username });
  await expect(mySignIn.first()).toBeVisible();
  await expect(mySignIn.first().locator('td').nth(4)).toHaveText('201 done');
  await expect(mySignIn.first().locator('td').nth(5)).toHaveText(/^[0-9a-f-]{36}$/);
  await expectAccessible(page);

  // A viewer signs in (an event by someone else) and is kept out of the page.
  const viewerContext = await browser.newContext({ baseURL });
  const viewerPage = await viewerContext.newPage();
  await signIn(viewerPage, viewer, '/audit');
  await expect(viewerPage.getByRole('heading', { name: 'Platform admins only' })).toBeVisible();
  await expect(viewerPage.getByRole('link', { name: 'Audit log' })).toHaveCount(0);
  await expect(viewerPage.getByRole('table')).toHaveCount(0);
  await viewerContext.close();

  // By actor: only the viewer's events, the sign-in among them.
  await page.getByLabel('Actor', { exact: true }).fill(viewer.username);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows.filter({ hasText: 'POST /api/v1/session' })).toHaveCount(1);
  await expect(rows.filter({ hasText: admin.username })).toHaveCount(0);

  // 55 refused deletes make more than a page of the admin's events.
  for (let i = 0; i < 55; i++) {
    const r = await apiAs(page, 'DELETE', `/api/v1/credentials/e2e-missing-${i}`);
    expect(r.status()).toBe(404);
  }
  await page.getByLabel('Actor', { exact: true }).fill(admin.username);
  await page.getByLabel('From', { exact: true }).fill(local(started));
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows).toHaveCount(50);
  await expect(rows.first()).toContainText('e2e-missing-54'); // newest first
  await expect(rows.first()).toContainText('404 not found');
  const pages = page.getByRole('navigation', { name: 'Audit log pages' });
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(pages).toContainText('Page 2');
  await expect(rows.filter({ hasText: 'POST /api/v1/session' }).first()).toBeVisible(); // the sign-in is older
  await expect(rows.filter({ hasText: 'e2e-missing-54' })).toHaveCount(0);
  await pages.getByRole('button', { name: 'Previous' }).click();
  await expect(rows.first()).toContainText('e2e-missing-54');
  await shoot(page, 'audit');

  // By target: the one event on that ID.
  await page.getByLabel('Target', { exact: true }).fill('e2e-missing-7');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('DELETE /api/v1/credentials/:id');

  // A window that ends before it starts is refused by the form; one in the future is empty.
  await page.getByLabel('Target', { exact: true }).fill('');
  await page.getByLabel('From', { exact: true }).fill('2099-01-02T00:00');
  await page.getByLabel('To', { exact: true }).fill('2099-01-01T00:00');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('Must be later than From.')).toBeVisible();
  await page.getByLabel('To', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('No events match these filters.')).toBeVisible();
  await expectAccessible(page);

  // Cleared, the page is the newest 50 of everything again.
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(rows).toHaveCount(50);
  await expect(rows.first()).toContainText('e2e-missing-54');
});
