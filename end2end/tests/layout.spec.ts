// Every main page at phone width (390 px) and desktop width: photographed into test-results/screens/
// for review, and none may scroll sideways on a phone.
import { Page, test } from '@playwright/test';
import { buyOne, expect, logInDemo, PAGES, pageName, waitForHydration } from './helpers';

async function check(page: Page, path: string) {
  for (const [label, width] of [['phone', 390], ['desktop', 1280]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(path);
    await waitForHydration(page);
    await page.screenshot({ path: `test-results/screens/page-${pageName(path)}-${label}.png`, fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} at ${width} px scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
  }
}

test('public pages fit a phone', async ({ page }) => {
  test.setTimeout(150_000);
  for (const path of PAGES.public) await check(page, path);
});

test("a shopper's pages fit a phone", async ({ page }) => {
  test.setTimeout(150_000);
  await logInDemo(page, '13800000003');
  // An order first, so "My orders" has its table to fit (it was 540 px wide in a 390 px screen).
  await buyOne(page);
  await page.goto('/orders');
  await expect(page.locator('.order-list tbody tr').first()).toBeAttached();
  for (const path of PAGES.shopper) await check(page, path);
});

test("a merchant's pages fit a phone", async ({ page }) => {
  test.setTimeout(150_000);
  await logInDemo(page, '13800000001');
  for (const path of PAGES.merchant) await check(page, path);
});

test("an operator's pages fit a phone", async ({ page }) => {
  await logInDemo(page, '13800000009');
  for (const path of PAGES.operator) await check(page, path);
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

test('pages read and links work before (and without) the wasm bundle', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/');
  await page.locator('.type-tile').first().click();
  await expect(page).toHaveURL(/\/types\/1/);
  await expect(page.locator('.shop-row')).toHaveCount(20);
  const name = (await page.locator('.shop-name').first().textContent())!.trim();
  await page.locator('.shop-name').first().click();
  await expect(page.locator('.shop-title')).toHaveText(name);
  await expect(page.locator('.gallery img').first()).toBeVisible();
  // The best-rated shop need not sell coupons; shop 1 sells both kinds, and has reviews.
  await page.goto('/shops/1');
  await expect(page.locator('.voucher').first()).toBeVisible();
  await expect(page.locator('li.review').first()).toBeVisible();
  await page.goto('/nearby?type=1&area=0');
  await expect(page.locator('.nearby-map .pin')).toHaveCount(20);
  await page.locator('.nearby-map .pin').first().click();
  await expect(page).toHaveURL(/#shop-\d+$/);
  await context.close();
});
