import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readState } from './stack';

export const screenshots = join(import.meta.dirname, 'screenshots');

type Fixtures = { consoleErrors: string[] };

// The policy the server sends in production; the pages are loaded under it
// here too, so an inline script or style the app came to need would show
// up as a console error.
const csp = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

export const test = base.extend<Fixtures>({
  baseURL: async ({}, use) => use(readState().baseURL),
  page: async ({ page }, use) => {
    if (!process.env.KUBEOPERA_BENCH) {
      await page.route('**/*', async (route) => {
        if (route.request().resourceType() !== 'document') return route.continue();
        const resp = await route.fetch();
        await route.fulfill({ response: resp, headers: { ...resp.headers(), 'content-security-policy': csp } });
      });
    }
    await use(page);
  },
  // Console errors fail the test. The browser's own "Failed to load
  // resource" lines are left out: they report an HTTP status the app
  // expected and handled (401 before sign-in, 400 with field errors).
  consoleErrors: [async ({ page }, use) => {
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await use(errors);
    expect(errors, 'console errors').toEqual([]);
  }, { auto: true }],
});

export { expect };

export async function signIn(page: Page, user: { username: string; password: string }, path = '/clusters') {
  await page.goto(path);
  await expect(page).toHaveURL(/\/signin\?next=/);
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(new RegExp(path.replace(/[/]/g, '\\/') + '$'));
}

/** axe-core: no serious or critical violation on the page as it is. */
export async function expectAccessible(page: Page) {
  const r = await new AxeBuilder({ page }).analyze();
  const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  expect(bad, 'serious or critical accessibility violations').toEqual([]);
}

/** Saves a screenshot at 1280 and 390 px wide, checking the narrow one fits and passes axe. */
export async function shoot(page: Page, name: string) {
  mkdirSync(screenshots, { recursive: true });
  const wide = page.viewportSize() ?? { width: 1280, height: 900 };
  await page.screenshot({ path: join(screenshots, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} scrolls sideways at 390px`).toBeLessThanOrEqual(1);
  await expectAccessible(page); // the narrow layout has its own markup paths
  await page.screenshot({ path: join(screenshots, `${name}-390.png`), fullPage: true });
  await page.setViewportSize(wide);
}

/** Calls the API as the signed-in page, with its CSRF token for writes. */
export async function apiAs(page: Page, method: string, path: string, data?: unknown) {
  const session = await (await page.request.get('/api/v1/session')).json();
  const resp = await page.request.fetch(path, { method, data, headers: { 'X-CSRF-Token': session.csrfToken ?? '' } });
  return resp;
}
