// Retry from the cluster page. A local cluster fails for real when its
// start is cut short: the starter process that boots it is killed, as a
// crash or an OOM kill would, and the plugin reports the provisioning
// Failed. The admin sees Retry (a viewer does not); Retry moves the badge
// on, the plugin starts the cluster again, and it becomes Ready.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { admin, readState, viewer } from './stack';
import { apiAs, expect, expectAccessible, signIn, test } from './fixtures';

/** The directory the local plugin of `kubeopera dev` keeps cluster id in. */
function localClusterDir(id: string): string {
  const tmp = join(readState().dir, 'tmp');
  const dev = readdirSync(tmp).filter((d) => d.startsWith('kubeopera-dev-'));
  if (dev.length !== 1) throw new Error(`dev directories under ${tmp}: ${dev.join(', ')}; want one`);
  return join(tmp, dev[0], 'local-clusters', id);
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

test('a Failed local cluster is retried from its page to Ready', async ({ page, browser }) => {
  test.setTimeout(600_000);
  await signIn(page, admin);
  const made = await apiAs(page, 'POST', '/api/v1/clusters/provision', { name: 'retry-local', provider: 'local', inputs: { nodeCount: '1' } });
  expect(made.status(), await made.text()).toBe(202);
  const { id } = await made.json();

  // Kill the starter while the cluster is still starting (its boot takes
  // seconds: etcd and kube-apiserver must become healthy first).
  const dir = localClusterDir(id);
  let pid = 0;
  await expect.poll(() => {
    const phase = JSON.parse(read(join(dir, 'state.json')) ?? '{}').phase;
    if (phase && phase !== 'Starting') throw new Error(`the local cluster is ${phase} before its starter could be stopped`);
    return (pid = Number(read(join(dir, 'starter.pid')) ?? 0));
  }, { timeout: 120_000, intervals: [50] }).not.toBe(0);
  process.kill(pid, 'SIGKILL');

  await page.goto(`/clusters/${id}`);
  const phase = page.locator('.page-head .badge').first();
  await expect(phase).toHaveText(/Failed/, { timeout: 120_000 });
  await expect(page.locator('p.message')).toContainText('the start stopped before the cluster was ready');
  const retry = page.getByRole('button', { name: 'Retry' });
  await expect(retry).toBeVisible();
  await expect(retry).toHaveAccessibleDescription(/start the step that failed again/);
  await expectAccessible(page);

  // A viewer sees the Failed cluster but no Retry.
  const other = await browser.newContext();
  const viewerPage = await other.newPage();
  await signIn(viewerPage, viewer, `/clusters/${id}`);
  await expect(viewerPage.locator('.page-head .badge').first()).toHaveText(/Failed/);
  await expect(viewerPage.getByRole('button', { name: 'Retry' })).toHaveCount(0);
  await other.close();

  await retry.click();
  await expect(phase).not.toHaveText(/Failed/);
  await expect(retry).toHaveCount(0);
  await expect(phase).toHaveText(/Ready/, { timeout: 300_000 });

  const gone = await apiAs(page, 'POST', `/api/v1/clusters/${id}/teardown`, { confirmName: 'retry-local' });
  expect(gone.status(), await gone.text()).toBe(202);
  await expect.poll(async () => (await apiAs(page, 'GET', `/api/v1/clusters/${id}`)).status(), { timeout: 300_000 }).toBe(404);
});
