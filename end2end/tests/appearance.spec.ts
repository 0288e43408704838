// Visual snapshots of the main pages at phone (390 px) and desktop (1280 px) width, in the light and the
// dark scheme, in Chinese and in English (the language switch's cookie), against committed baselines
// (appearance.spec.ts-snapshots/): a layout that shifts, a style that stops applying or a font
// that goes missing fails here. What changes from run to run (clocks, counters, generated codes, open or closed now) is masked.
// Runs first (the `look` project, which the others depend on), on the freshly seeded demo data. After an intended change of the look:
//   cd end2end && BASE_URL=… npx playwright test appearance --update-snapshots
import { Page, test } from '@playwright/test';
import { expect, pageName, waitForHydration } from './helpers';

const MAIN = ['/', '/types/1', '/shops/1', '/nearby?type=1&area=0', '/login'];

async function snap(page: Page, path: string, scheme: 'light' | 'dark', lang: 'zh-CN' | 'en') {
  await page.emulateMedia({ colorScheme: scheme });
  await page.context().addCookies([{ name: 'lang', value: lang, url: test.info().project.use.baseURL! }]);
  for (const [label, width] of [['phone', 390], ['desktop', 1280]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(path);
    await waitForHydration(page);
    // Pictures are lazy: bring them all in before the shot.
    await page.evaluate(async () => {
      for (const img of Array.from(document.images)) img.loading = 'eager';
      await Promise.all(Array.from(document.images).map((img) => img.decode().catch(() => undefined)));
    });
    await expect(page).toHaveScreenshot(`${pageName(path)}-${label}-${scheme}-${lang}.png`, {
      fullPage: true,
      animations: 'disabled',
      caret: 'hide',
      mask: [
        page.locator('.countdown, .sale-state, .uv, .stock-left, .note-list, .notes .muted, .account-menu, .review-foot, .open-state, .today-hours'),
      ],
      maxDiffPixelRatio: 0.01,
    });
  }
}

test('the main pages look as they did', async ({ page }) => {
  test.setTimeout(240_000);
  for (const lang of ['zh-CN', 'en'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      for (const path of MAIN) await snap(page, path, scheme, lang);
    }
  }
});
