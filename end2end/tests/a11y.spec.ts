// Accessibility: axe-core scans every main page (WCAG 2.1 A and AA rules) as a shopper, merchant or operator
// sees it, at phone and desktop width and in the dark scheme at phone width; no serious or critical
// violation may remain.
import AxeBuilder from '@axe-core/playwright';
import { Page, test } from '@playwright/test';
import { buyOne, expect, logInDemo, PAGES, waitForHydration } from './helpers';

/** Scans each of `paths` at both widths; fails once at the end, listing every serious or critical finding. */
async function scanAll(page: Page, paths: string[]) {
  const found: string[] = [];
  for (const path of paths) found.push(...(await scan(page, path)));
  expect(found, found.join('\n')).toEqual([]);
}

async function scan(page: Page, path: string): Promise<string[]> {
  const found: string[] = [];
  // Both widths in the light scheme; the phone width again in the dark one (prefers-color-scheme).
  for (const [width, scheme] of [[390, 'light'], [1280, 'light'], [390, 'dark']] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    await page.goto(path);
    await waitForHydration(page);
    const { violations } = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    const bad = violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n')[1]?.trim() ?? ''}`).join('\n    ')}`);
    found.push(...bad.map((b) => `${path} at ${width} px, ${scheme}: ${b}`));
  }
  return found;
}

test('public pages pass an accessibility scan', async ({ page }) => {
  test.setTimeout(180_000);
  await scanAll(page, PAGES.public);
});

test("a shopper's pages pass an accessibility scan", async ({ page }) => {
  test.setTimeout(180_000);
  await logInDemo(page, '13800000002');
  await buyOne(page);
  await scanAll(page, PAGES.shopper);
});

test("a merchant's pages pass an accessibility scan", async ({ page }) => {
  test.setTimeout(225_000);
  await logInDemo(page, '13800000001');
  await scanAll(page, PAGES.merchant);
});

test("an operator's pages pass an accessibility scan", async ({ page }) => {
  test.setTimeout(60_000);
  await logInDemo(page, '13800000009');
  await scanAll(page, PAGES.operator);
});
