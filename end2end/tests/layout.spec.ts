// Every main page at phone width (390 px) and desktop width: photographed into test-results/screens/
// for review, and none may scroll sideways on a phone.
import { Page, test } from '@playwright/test';
import { expect, logInDemo, waitForHydration } from './helpers';

const PUBLIC = ['/', '/types/1', '/search?q=%E5%BA%97', '/shops/1', '/nearby', '/login', '/register', '/login/code'];
const SHOPPER = ['/orders', '/checkin', '/feed', '/me'];
const MERCHANT = ['/shops/1/sales', '/shops/1/edit', '/shops/new'];

async function check(page: Page, path: string) {
  for (const [label, width] of [['phone', 390], ['desktop', 1280]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(path);
    await waitForHydration(page);
    const name = path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home';
    await page.screenshot({ path: `test-results/screens/page-${name}-${label}.png`, fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} at ${width} px scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
  }
}

test('public pages fit a phone', async ({ page }) => {
  test.setTimeout(90_000);
  for (const path of PUBLIC) await check(page, path);
});

test("a shopper's pages fit a phone", async ({ page }) => {
  test.setTimeout(90_000);
  await logInDemo(page, '13800000003');
  // An order first, so "My orders" has its table to fit (it was 540 px wide in a 390 px screen).
  await page.goto('/shops/1');
  await waitForHydration(page);
  const normal = page.locator('li.voucher:not(.flash)').first();
  await normal.locator('.buy-button').click();
  await expect(normal.locator('.buy-result')).toContainText('created');
  await page.goto('/orders');
  await expect(page.locator('.order-list tbody tr').first()).toBeAttached();
  for (const path of SHOPPER) await check(page, path);
});

test("a merchant's pages fit a phone", async ({ page }) => {
  test.setTimeout(90_000);
  await logInDemo(page, '13800000001');
  for (const path of MERCHANT) await check(page, path);
});

test('the slider puzzle fits a phone, its handle under the piece', async ({ page }) => {
  await logInDemo(page, '13800000001');
  for (const [label, width] of [['phone', 390], ['desktop', 1280]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/shops/1');
    await waitForHydration(page);
    const card = page.locator('li.flash[data-voucher-id="1"]');
    await card.locator('.grab-button').click();
    await expect(card.locator('.puzzle')).toBeVisible();
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/screens/puzzle-${label}.png` });
    const picture = (await card.locator('.puzzle-picture').boundingBox())!;
    const slider = (await card.locator('.puzzle-slider').boundingBox())!;
    expect(Math.abs(picture.width - slider.width), 'slider as wide as the picture').toBeLessThanOrEqual(1);
    expect(Math.abs(picture.x - slider.x)).toBeLessThanOrEqual(1);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `the puzzle at ${width} px scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
  }
});
