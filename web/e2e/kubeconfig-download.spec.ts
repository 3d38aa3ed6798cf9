// The cluster page's Download kubeconfig, for a viewer: the browser saves
// <cluster>.kubeconfig, a kubeconfig of the viewer's own that reaches the
// cluster through KubeOpera's proxy with a token that works there as the
// viewer. (Runs after dashboard.spec, whose Get Started needs no cluster.)
import { readFileSync } from 'node:fs';
import { admin, viewer } from './stack';
import { apiAs, expect, expectAccessible, signIn, test } from './fixtures';

test('a viewer downloads a kubeconfig of their own from the cluster page', async ({ page }) => {
  await signIn(page, admin);
  const registered = await apiAs(page, 'POST', '/api/v1/clusters/register-self', {});
  expect([200, 201], await registered.text()).toContain(registered.status());
  const { id, name } = await registered.json();
  expect((await apiAs(page, 'DELETE', '/api/v1/session')).status()).toBe(204);

  await signIn(page, viewer, `/clusters/${id}`);
  const button = page.getByRole('button', { name: 'Download kubeconfig' });
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  expect(download.suggestedFilename()).toBe(`${name}.kubeconfig`);
  const kubeconfig = readFileSync((await download.path())!, 'utf8');
  expect(kubeconfig).toContain(`/k8s/clusters/${id}`);
  await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toContainText(`Saved ${name}.kubeconfig; its token expires`);

  // The file's token is the viewer's: the proxy takes it and acts as them.
  const token = /^\s*token: (\S+)$/m.exec(kubeconfig)?.[1] ?? '';
  expect(token).not.toBe('');
  const review = await page.request.post(`/k8s/clusters/${id}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    data: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  expect(review.status(), await review.text()).toBe(201);
  expect((await review.json()).status.userInfo.username).toBe(`kubeopera:${viewer.username}`);
  await expectAccessible(page);
});
