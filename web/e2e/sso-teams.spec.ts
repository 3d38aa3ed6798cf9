// Single sign-on and teams, end to end: people sign in through a real
// OpenID Provider (the test kit's, bin/testoidc, on loopback) to a
// `kubeopera dev` of this spec's own, started with the SSO flags and a
// group mapping. A member of team-a-operators sees only team A's clusters,
// scales one and is refused its teardown; a platform admin (group
// "platform") disables them on the Users page, and their next request is
// refused. The suite's shared stack is not touched.
import { test as base, expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiAs, expectAccessible } from './fixtures';
import { freePort, repo, runDev, start, stop, until, type Dev } from './stack';

const idpName = 'Test IdP';
const operator = { subject: 'u-olga', username: 'sso-olga', email: 'olga@example.com', groups: ['team-a-operators'] };
const platformAdmin = { subject: 'u-pat', username: 'sso-pat', email: 'pat@example.com', groups: ['platform'] };
const mappings = [{ group: 'team-a-operators', team: 'team-a', role: 'operator' }, { group: 'platform', role: 'platform-admin' }];

let dir = '';
let dev: Dev;
const pids: number[] = [];

// The provider first (the server reads its discovery document at sign-in),
// registered with the callback of the port dev will listen on.
base.beforeAll(async () => {
  base.setTimeout(360_000);
  dir = mkdtempSync(join(tmpdir(), 'kubeopera-e2e-sso-'));
  mkdirSync(join(dir, 'idp'));
  const [idpPort, port] = [await freePort(), await freePort()];
  const issuer = `http://127.0.0.1:${idpPort}`;
  const secretFile = join(dir, 'idp', 'client-secret');
  writeFileSync(secretFile, 'e2e-client-secret\n', { mode: 0o600 });
  const config = join(dir, 'idp', 'idp.json');
  writeFileSync(config, JSON.stringify({
    clients: [{ id: 'kubeopera', secret: 'e2e-client-secret', redirectURIs: [`http://127.0.0.1:${port}/api/v1/auth/oidc/callback`] }],
    users: [operator, platformAdmin],
  }));
  pids.push(start(dir, 'testoidc', ['-listen', `127.0.0.1:${idpPort}`, '-config', config], {}, join(repo, 'bin/testoidc')));
  await until('bin/testoidc', 30_000, async () => {
    try {
      return (await fetch(`${issuer}/.well-known/openid-configuration`)).ok;
    } catch {
      return false;
    }
  }, dir);
  dev = await runDev(dir, ['--oidc-issuer-url', issuer, '--oidc-client-id', 'kubeopera', '--oidc-client-secret-file', secretFile,
    '--oidc-group-mappings', JSON.stringify(mappings), '--oidc-display-name', idpName,
    // As a server would: a provisioning that failed as RETRYABLE (a port
    // taken meanwhile) is started again (runDev's default is 0).
    '--auto-retries', '3'], (pid) => pids.push(pid), port);
});

base.afterAll(() => {
  stop(pids);
  if (!process.env.KUBEOPERA_E2E_KEEP) rmSync(dir, { recursive: true, force: true });
});

// A browser context of its own for each person, on this spec's server;
// console errors fail the test as in the other specs.
const test = base.extend<{ person: (who: string) => Promise<Page> }>({
  person: async ({ browser }, use) => {
    const contexts: BrowserContext[] = [];
    const errors: string[] = [];
    await use(async (who) => {
      const ctx = await newContext(browser);
      contexts.push(ctx);
      const page = await ctx.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`${who}: ${m.text()}`);
      });
      page.on('pageerror', (e) => errors.push(`${who}: ${e.message}`));
      return page;
    });
    for (const c of contexts) await c.close();
    expect(errors, 'console errors').toEqual([]);
  },
});

function newContext(browser: Browser) {
  return browser.newContext({ baseURL: dev.baseURL });
}

/** Signs in from the dashboard's sign-in page through the provider's form. */
async function signInWithSSO(page: Page, username: string, path = '/clusters') {
  await page.goto(path);
  await expect(page).toHaveURL(/\/signin\?next=/);
  await throughProvider(page, username);
  await expect(page).toHaveURL(new RegExp(path.replace(/[/]/g, '\\/') + '$'));
}

/** From the sign-in page, through the provider's form as username. */
async function throughProvider(page: Page, username: string) {
  await page.getByRole('link', { name: `Sign in with ${idpName}` }).click();
  await expect(page.getByRole('heading', { name: 'Test identity provider' })).toBeVisible();
  await page.getByLabel('Username').fill(username);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

type Cluster = { id: string; name: string; team: string; status: string; message?: string; node_count: number; ready_node_count: number; role?: string;
  actions?: Record<string, { allowed: boolean; reason?: string }> };

/** Waits for the cluster to be Ready, failing at once if it Failed. */
async function untilReady(page: Page, name: string) {
  await expect.poll(async () => {
    const c = (await clusters(page)).find((c) => c.name === name);
    if (c?.status === 'Failed') throw new Error(`${name} Failed: ${c.message}`);
    return c?.status;
  }, { timeout: 300_000, intervals: [1000] }).toBe('Ready');
}

async function clusters(page: Page): Promise<Cluster[]> {
  const resp = await apiAs(page, 'GET', '/api/v1/clusters');
  expect(resp.status(), await resp.text()).toBe(200);
  return (await resp.json()).items;
}

test('single sign-on: a team-a operator sees team A only, scales, is refused teardown; a platform admin disables them', async ({ person }) => {
  test.setTimeout(600_000);
  const pat = await person('platform admin');
  await signInWithSSO(pat, platformAdmin.username);
  expect((await (await apiAs(pat, 'GET', '/api/v1/session')).json()).user.role).toBe('platform-admin');

  // Teams before the operator's first sign-in: a mapping's team role
  // applies to a team that exists. One local cluster in each.
  for (const name of ['team-a', 'team-b']) {
    const made = await apiAs(pat, 'POST', '/api/v1/teams', { name });
    expect(made.status(), await made.text()).toBe(201);
  }
  // One at a time: two local clusters started at once can pick the same
  // free port for their API servers.
  const ids: Record<string, string> = {};
  for (const [name, team] of [['sso-a', 'team-a'], ['sso-b', 'team-b']]) {
    const made = await apiAs(pat, 'POST', '/api/v1/clusters/provision', { name, team, provider: 'local', inputs: { nodeCount: '1' } });
    expect(made.status(), await made.text()).toBe(202);
    ids[name] = (await made.json()).id;
    if (name === 'sso-a') await untilReady(pat, name);
  }

  // The operator: only team A's cluster, in the list and in the API.
  const olga = await person('team-a operator');
  await signInWithSSO(olga, operator.username);
  const cards = olga.getByTestId('cluster-card');
  await expect(cards).toHaveCount(1);
  await expect(cards).toContainText('sso-a');
  await expectAccessible(olga);
  const seen = await clusters(olga);
  expect(seen.map((c) => c.name)).toEqual(['sso-a']);
  const a = seen[0];
  expect([a.team, a.role]).toEqual(['team-a', 'operator']);
  expect(a.actions?.scale.allowed).toBe(true);
  expect(a.actions?.teardown).toEqual({ allowed: false, offered: false, reason: expect.stringContaining('needs the admin role on team "team-a"') });
  expect((await apiAs(olga, 'GET', `/api/v1/clusters/${ids['sso-b']}`)).status()).toBe(404);

  // Scale 1 → 2 from the cluster page's dialog, which an operator is offered.
  await olga.goto(`/clusters/${a.id}`);
  await expect(olga.locator('.page-head .badge').first()).toHaveText(/Ready/);
  await olga.getByRole('button', { name: 'Scale' }).click();
  const dialog = olga.getByRole('dialog', { name: 'Scale sso-a' });
  await dialog.getByLabel('Nodes').fill('2');
  await expectAccessible(olga);
  const patched = olga.waitForResponse((r) => r.url().endsWith(`/api/v1/clusters/${a.id}`) && r.request().method() === 'PATCH');
  await dialog.getByRole('button', { name: 'Scale to 2 nodes' }).click();
  const scaled = (await patched).status();
  await expect(dialog).toHaveCount(0);
  expect(scaled).toBe(202);
  await expect.poll(async () => {
    const [c] = await clusters(olga);
    return `${c.ready_node_count}/${c.node_count}`;
  }, { timeout: 300_000, intervals: [1000] }).toBe('2/2');

  // Teardown: no button for the operator, and the server refuses it.
  await expect(olga.getByRole('button', { name: 'Tear down' })).toHaveCount(0);
  await olga.goto('/clusters');
  await expect(cards).toHaveCount(1);
  await expect(cards.getByRole('button', { name: 'Tear down' })).toHaveCount(0);
  const refused = await apiAs(olga, 'POST', `/api/v1/clusters/${a.id}/teardown`, { confirmName: 'sso-a' });
  expect(refused.status(), await refused.text()).toBe(403);

  // The platform admin disables the operator on the Users page; the
  // operator's next request is refused and the dashboard sends them to
  // the sign-in page.
  await pat.goto('/users');
  const row = pat.getByRole('row').filter({ hasText: operator.username });
  await row.getByRole('button', { name: `Disable ${operator.username}` }).click();
  await pat.getByRole('dialog', { name: `Disable ${operator.username}?` }).getByRole('button', { name: 'Disable user' }).click();
  await expect(row).toContainText('Disabled');
  expect((await olga.request.get('/api/v1/clusters')).status()).toBe(401);
  expect((await olga.request.get('/api/v1/session')).status()).toBe(401);
  await olga.reload();
  await expect(olga).toHaveURL(/\/signin/);
  // Signing in again through the provider does not bring them back.
  await throughProvider(olga, operator.username);
  await expect(olga).toHaveURL(/\/signin\?.*sso_error=/);
  await expect(olga.getByRole('alert')).toBeVisible();
  expect((await olga.request.get('/api/v1/session')).status()).toBe(401);
});
