// The wizard's provider cards line up: at a desktop and a phone width,
// every card is as tall as the others and has its radio button at the same
// place inside it, whether or not it carries a "Soon" badge.
import { admin } from './stack';
import { expect, signIn, test } from './fixtures';

for (const width of [1280, 390]) {
  test(`provider cards are one height with the radio at one place, ${width}px wide`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await signIn(page, admin);
    await page.getByRole('button', { name: 'New Cluster' }).click();
    const wizard = page.getByRole('dialog', { name: 'Cluster Setup Wizard' });
    await wizard.getByRole('button', { name: 'Create New' }).click();
    const cards = wizard.locator('.providers .provider');
    await expect(cards.first()).toBeVisible();
    const boxes = await cards.evaluateAll((els) => els.map((el) => {
      const card = el.getBoundingClientRect();
      const radio = el.querySelector('input[type="radio"]')!.getBoundingClientRect();
      return { height: card.height, dx: radio.left - card.left, dy: radio.top - card.top, soon: el.classList.contains('soon') };
    }));
    // The plugins give both kinds of card, so the check compares unlike ones.
    expect(boxes.length).toBeGreaterThan(1);
    expect(boxes.some((b) => b.soon) && boxes.some((b) => !b.soon)).toBe(true);
    const [first] = boxes;
    for (const b of boxes) {
      expect(Math.abs(b.height - first.height), `card heights ${boxes.map((x) => x.height).join(', ')}`).toBeLessThan(0.5);
      expect(Math.abs(b.dx - first.dx), `radio left offsets ${boxes.map((x) => x.dx).join(', ')}`).toBeLessThan(0.5);
      expect(Math.abs(b.dy - first.dy), `radio top offsets ${boxes.map((x) => x.dy).join(', ')}`).toBeLessThan(0.5);
    }
  });
}
