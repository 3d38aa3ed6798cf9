// The cluster page of a local cluster (the local plugin provisions real
// sandbox clusters, with no Terraform): its nodes read live, the
// HostCluster's conditions and events, no Terraform Job line, and the
// disconnect dialog repeating the API's notice with Tear down instead.
import { admin } from './stack';
import { apiAs, expect, expectAccessible, signIn, test } from './fixtures';

test('a local cluster\'s page shows nodes, conditions and events, and no Terraform line', async ({ page }) => {
  test.setTimeout(600_000);
  await signIn(page, admin);
  const made = await apiAs(page, 'POST', '/api/v1/clusters/provision', { name: 'page-local', provider: 'local', inputs: { nodeCount: '1' } });
  expect(made.status(), await made.text()).toBe(202);
  const { id } = await made.json();
  await page.goto(`/clusters/${id}`);
  await expect(page.locator('.page-head .badge').first()).toHaveText(/Ready/, { timeout: 300_000 });

  const nodes = page.getByTestId('node-table');
  await expect(nodes.locator('tbody tr')).not.toHaveCount(0);
  await expect(nodes).toContainText('Ready');
  const conditions = page.getByTestId('conditions');
  await expect(conditions.locator('tbody tr').filter({ hasText: 'Provisioned' })).toContainText('True');
  await expect(page.getByTestId('events').locator('tbody tr')).not.toHaveCount(0);
  const commands = page.getByLabel('kubectl commands');
  await expect(commands).toContainText(`kubectl get hostcluster ${id} -n kubeopera-system -w`);
  await expect(commands).not.toContainText('kubectl logs');
  await expectAccessible(page);

  // The list's Disconnect repeats the API's notice and offers Tear down.
  const detail = await (await apiAs(page, 'GET', `/api/v1/clusters/${id}`)).json();
  expect(detail.terraformJob ?? '').toBe('');
  expect(detail.disconnectNotice).toContain('keeps running and costing money');
  await page.goto('/clusters');
  await page.getByTestId('cluster-card').filter({ hasText: 'page-local' }).getByRole('button', { name: 'Disconnect' }).click();
  const dialog = page.getByRole('dialog', { name: 'Disconnect page-local?' });
  await expect(dialog.getByTestId('disconnect-notice')).toHaveText(detail.disconnectNotice);
  await expectAccessible(page);
  await dialog.getByRole('button', { name: 'Tear down instead' }).click();
  const teardown = page.getByRole('dialog', { name: 'Tear down page-local?' });
  await teardown.getByLabel(/to confirm/).fill('page-local');
  await teardown.getByRole('button', { name: 'Tear down' }).click();
  await expect.poll(async () => (await apiAs(page, 'GET', `/api/v1/clusters/${id}`)).status(), { timeout: 300_000 }).toBe(404);
});
