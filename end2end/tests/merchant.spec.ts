// A merchant's day: log in → the console → a new coupon → a shopper buys and pays it → the merchant
// redeems the customer's code at the counter (once) → the order list, the export and the charts show it.
// Every console page is photographed at desktop and phone width into test-results/screens/.
import { Page, test } from '@playwright/test';
import { expect, logIn, logInDemo, screens as shoot, userPage, waitForHydration } from './helpers';

const MERCHANT = '13800000001'; // owns shops 1..5 in the demo data
const SHOPPER = '13800000002';

const screens = (page: Page, name: string) => shoot(page, `merchant-${name}`);

test("a merchant's day: coupon → sold → redeemed once → in the orders and the charts", async ({ browser }) => {
  test.setTimeout(120_000);
  const merchant = await userPage(browser);
  // A merchant lands on the console after logging in, and the header offers it.
  await logIn(merchant, MERCHANT, 'haodian2026');
  await expect(merchant).toHaveURL(/\/merchant$/);
  await expect(merchant.locator('.console-entry')).toBeVisible();
  await expect(merchant.locator('.shop-card').first()).toBeVisible();
  await screens(merchant, 'console');

  // A new coupon on shop 1; a face value below the price is refused next to its field first.
  const title = `Lunch set ${Date.now() % 100000}`;
  await merchant.goto('/merchant/shops/1/coupons');
  await waitForHydration(merchant);
  await merchant.fill('#coupon-title', title);
  await merchant.fill('#coupon-pay', '39.9');
  await merchant.fill('#coupon-actual', '10');
  await merchant.getByRole('button', { name: 'Add coupon' }).click();
  await expect(merchant.locator('.field-error[data-field="actual"]')).toContainText('face value');
  await merchant.fill('#coupon-actual', '50');
  await merchant.getByRole('button', { name: 'Add coupon' }).click();
  await expect(merchant.locator('.coupons tbody tr', { hasText: title })).toBeVisible();
  await screens(merchant, 'coupons');

  // The shopper buys it on the shop page and pays: "My orders" shows the redemption code and its QR code.
  const shopper = await userPage(browser);
  await logInDemo(shopper, SHOPPER);
  await shopper.goto('/shops/1');
  await waitForHydration(shopper);
  const coupon = shopper.locator('li.voucher:not(.flash)', { hasText: title });
  await coupon.locator('.buy-button').click();
  await expect(coupon.locator('.buy-result')).toContainText('created');
  const orderId = await coupon.locator('.buy-result').getAttribute('data-order-id');
  expect(orderId).toBeTruthy();
  await shopper.goto('/orders');
  await waitForHydration(shopper);
  const row = shopper.locator(`.order-list tbody tr[data-order-id="${orderId}"]`);
  await row.getByRole('button', { name: 'Pay' }).click();
  await expect(row.locator('.order-status')).toHaveText('paid');
  // The QR code is an image of the shopper's own: it loads (an SVG drawn by the server), and nobody else's
  // browser gets it.
  const qr = row.locator('.redeem-code img.qr');
  await expect(qr).toBeVisible();
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  const qrUrl = (await qr.getAttribute('src')) ?? '';
  expect((await merchant.request.get(qrUrl)).status()).toBe(404);
  const code = ((await row.locator('.redeem-code .code').textContent()) ?? '').trim();
  expect(code).toMatch(/^\d{4} \d{4} \d{4}$/);

  // At the counter: the code is honoured once; the second scan says it was used already.
  await merchant.goto('/merchant/redeem');
  await waitForHydration(merchant);
  await merchant.fill('#redeem-code', '1234');
  await merchant.getByRole('button', { name: 'Redeem' }).click();
  await expect(merchant.locator('.field-error[data-field="code"]')).toContainText('12 digits');
  await merchant.fill('#redeem-code', code);
  await merchant.getByRole('button', { name: 'Redeem' }).click();
  await expect(merchant.locator('.redeem-result.ok')).toContainText(title);
  await screens(merchant, 'redeem');
  await merchant.getByRole('button', { name: 'Redeem' }).click();
  await expect(merchant.locator('.redeem-result.already')).toContainText('Do not honour it again');

  // The shopper's order now reads "used".
  await shopper.reload();
  await expect(shopper.locator(`.order-list tbody tr[data-order-id="${orderId}"] .order-status`)).toHaveText('used');

  // The shop's orders, filtered to used ones, list it; the CSV export has it too.
  await merchant.goto('/merchant/shops/1/orders?status=used');
  await expect(merchant.locator(`.shop-orders tr[data-order-id="${orderId}"] .order-status`)).toHaveText('used');
  await screens(merchant, 'orders');
  const csv = await merchant.request.get('/merchant/shops/1/orders.csv?status=used');
  expect(csv.ok()).toBeTruthy();
  expect(csv.headers()['content-type']).toContain('text/csv');
  expect(await csv.text()).toContain(`${orderId},`);

  // The report's charts count today's order and revenue.
  await merchant.goto('/merchant/shops/1');
  const orders = merchant.locator('figure.chart-box', { hasText: 'Orders per day' });
  await expect(orders.locator('svg.chart')).toBeVisible();
  const lastBar = orders.locator('rect.bar').last();
  expect(Number(/: (\d+)/.exec((await lastBar.locator('title').textContent()) ?? '')?.[1])).toBeGreaterThan(0);
  await expect(merchant.locator('figure.chart-box', { hasText: 'Revenue per day' }).locator('rect.bar').last())
    .not.toHaveClass(/zero/);
  await screens(merchant, 'report');

  // The live sale's page: stock and funnel.
  await merchant.goto('/merchant/sales/1');
  await expect(merchant.locator('.stock-left')).toBeVisible();
  await expect(merchant.locator('svg.chart')).toBeVisible();
  await screens(merchant, 'sale');

  // A shopper has no console: no header entry, and the page says so.
  await expect(shopper.locator('.console-entry')).toHaveCount(0);
  await shopper.goto('/merchant');
  await expect(shopper.locator('.console')).toContainText("shop's merchant only");
  expect((await shopper.request.get('/merchant')).status()).toBe(403);
  const anonymous = await userPage(browser);
  expect((await anonymous.request.get('/merchant/shops/1/orders')).status()).toBe(401);
});
