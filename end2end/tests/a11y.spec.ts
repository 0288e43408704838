// Accessibility: axe-core scans every main page (WCAG 2.1 A and AA rules) as a shopper, merchant or operator
// sees it, at phone and desktop width in the light and the dark scheme, in Chinese and in English; no serious
// or critical violation may remain.
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
  // Each width in each scheme (prefers-color-scheme), each scheme in both languages (the switch's cookie).
  const passes = [[390, 'light', 'zh-CN'], [1280, 'light', 'en'], [390, 'dark', 'en'], [1280, 'dark', 'zh-CN']] as const;
  for (const [width, scheme, lang] of passes) {
    await page.context().addCookies([{ name: 'lang', value: lang, url: test.info().project.use.baseURL! }]);
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
    found.push(...bad.map((b) => `${path} at ${width} px, ${scheme}, ${lang}: ${b}`));
  }
  return found;
}

test('public pages pass an accessibility scan', async ({ page }) => {
  test.setTimeout(240_000);
  await scanAll(page, PAGES.public);
});

test("a shopper's pages pass an accessibility scan", async ({ page }) => {
  test.setTimeout(240_000);
  await logInDemo(page, '13800000002');
  await buyOne(page);
  await scanAll(page, PAGES.shopper);
});

test("a merchant's pages pass an accessibility scan", async ({ page }) => {
  test.setTimeout(300_000);
  await logInDemo(page, '13800000001');
  await scanAll(page, PAGES.merchant);
});

test("an operator's pages pass an accessibility scan", async ({ page }) => {
  test.setTimeout(80_000);
  await logInDemo(page, '13800000009');
  await scanAll(page, PAGES.operator);
});
