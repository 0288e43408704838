// Order lifecycle end to end (the e2e server runs with PAY_TIMEOUT_SECS=8): grab → "My orders" counts down
// → Pay → "paid"; an order left unpaid turns "closed" on its own and the coupon can be grabbed again; a buyer
// cancels an unpaid order and has a paid coupon refunded with a reason; a paid coupon whose validity ends
// is refunded by itself.
import { execFileSync } from 'node:child_process';
import { Locator, Page, test } from '@playwright/test';
import { buyOne, expect, logInDemo, logInNewAccount, screens, solvePuzzle, uniquePhone, waitForHydration } from './helpers';

const LIVE_SALE = 1; // the seeded live flash sale on shop 1

/** The order a result ("Got it — order 6AYN-BMW4-WAJW7 …", "Order … created") names: its id and its code. */
async function orderOf(result: Locator): Promise<{ id: string; code: string }> {
  const id = await result.getAttribute('data-order-id');
  const code = /order ([0-9A-HJKMNP-TV-Z]{4}(?:-[0-9A-HJKMNP-TV-Z]{1,5})*)/i.exec((await result.textContent()) ?? '')?.[1];
  if (!id || !code) throw new Error(`no order in ${JSON.stringify(await result.textContent())}`);
  return { id, code };
}

/** The server's word on one of my orders (the page shows a due order as closed before the server says so). */
async function serverStatus(page: Page, id: string): Promise<string | undefined> {
  const res = await page.request.post('/api/orders/mine', { form: {} });
  expect(res.ok()).toBeTruthy();
  // Ids are 64-bit: compare them as text, never as JavaScript numbers.
  const text = await res.text();
  const m = new RegExp(`"id":${id},[^}]*?"status":"(\\w+)"`).exec(text);
  return m?.[1];
}

/** Buys the shop's first normal coupon; answers the order id. */
async function buyNormal(page: Page) {
  const normal = await buyOne(page);
  return { normal, id: (await orderOf(normal.locator('.buy-result'))).id };
}

async function grabLiveSale(page: Page) {
  await page.goto('/shops/1');
  await waitForHydration(page);
  const card = page.locator(`li.flash[data-voucher-id="${LIVE_SALE}"]`);
  await card.locator('.grab-button').click();
  await solvePuzzle(page, card, 'keys');
  await expect(card.locator('.order-status')).toHaveText('awaiting payment', { timeout: 20_000 });
  return card;
}

test('grab → My orders counts down → Pay → paid, and it stays paid past the deadline', async ({ page }) => {
  test.setTimeout(60_000);
  await logInDemo(page, '13800000003');
  const card = await grabLiveSale(page);
  const { id: paidId, code } = await orderOf(card.locator('.grab-result'));
  // A witness bought just after: its deadline comes after the grabbed order's, and it stays unpaid.
  const witness = (await buyNormal(page)).id;
  await page.goto('/orders');
  await waitForHydration(page);
  const row = page.locator(`.order-list tbody tr[data-order-id="${paidId}"]`);
  // The short code the grab showed names this very order in the list.
  await expect(row.locator('.order-code')).toHaveText(code);
  await expect(row.locator('.pay-countdown')).toContainText(/Closes in 00:0\d/);
  await row.getByRole('button', { name: 'Pay' }).click();
  await expect(page.locator('.pay-result')).toHaveText('Paid. Enjoy!');
  await expect(row.locator('.order-status')).toHaveText('paid');
  await expect(row.locator('.pay-button')).toHaveCount(0);
  // Once the server has closed the witness, the closer has passed the paid order's deadline too.
  await expect.poll(() => serverStatus(page, witness), { timeout: 30_000 }).toBe('Closed');
  expect(await serverStatus(page, paidId)).toBe('Paid');
  await page.reload();
  await expect(page.locator(`.order-list tbody tr[data-order-id="${paidId}"] .order-status`)).toHaveText('paid');
});

test('an unpaid order closes by itself and the coupon is grabbable again', async ({ page }) => {
  test.setTimeout(60_000);
  await logInDemo(page, 'alice@example.com');
  await grabLiveSale(page);
  await page.goto('/orders');
  await waitForHydration(page);
  const row = page.locator('.order-list tbody tr').first();
  await expect(row.locator('.order-status')).toHaveText('awaiting payment');
  await expect(row.locator('.order-status')).toHaveText('closed', { timeout: 20_000 });
  await expect(row.locator('.pay-button')).toHaveCount(0);
  // The server closed it too (the list was fetched again), and the coupon went back on sale for this user.
  await page.reload();
  await expect(page.locator('.order-list tbody tr').first().locator('.order-status')).toHaveText('closed', { timeout: 15_000 });
  const card = await grabLiveSale(page);
  await expect(card.locator('.grab-result')).toContainText(/Got it — order [0-9A-Z]{4}-/);
});

test('a normal coupon is bought at once and shows up unpaid', async ({ page }) => {
  await logInDemo(page, '13800000002');
  const { normal, id } = await buyNormal(page);
  expect(await serverStatus(page, id)).toBe('Unpaid');
  await normal.locator('.buy-result a').click();
  await expect(page).toHaveURL(/\/orders/);
  await expect(page.locator(`.order-list tbody tr[data-order-id="${id}"] .order-status`)).toHaveText('awaiting payment');
});

test('a buyer cancels an unpaid order and has a paid coupon refunded with a reason', async ({ page }) => {
  test.setTimeout(60_000);
  // An account of its own: a demo buyer's orders from other tests close meanwhile and tell its inbox,
  // which raced the unread count this test reads.
  await logInNewAccount(page, uniquePhone());
  const cancelled = (await buyNormal(page)).id;
  const refunded = (await buyNormal(page)).id;
  await page.goto('/orders');
  await waitForHydration(page);
  const cancelRow = page.locator(`.order-list tbody tr[data-order-id="${cancelled}"]`);
  await cancelRow.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.locator('.pay-result')).toHaveText('Cancelled. Nothing was charged, and the coupon is back on sale.');
  await expect(cancelRow.locator('.order-status')).toHaveText('cancelled');
  await expect(cancelRow.locator('.pay-button, .cancel-button')).toHaveCount(0);
  expect(await serverStatus(page, cancelled)).toBe('Cancelled');

  const row = page.locator(`.order-list tbody tr[data-order-id="${refunded}"]`);
  await row.getByRole('button', { name: 'Pay' }).click();
  await expect(row.locator('.order-status')).toHaveText('paid');
  await expect(row.locator('.use-by')).toContainText('Use by');
  await row.locator('.refund summary').click();
  await row.getByLabel('Why?').selectOption({ label: 'Could not book a time' });
  await screens(page, 'orders-refund');
  await row.locator('.refund-button').click();
  await expect(page.locator('.pay-result')).toContainText(/Refunded: ¥[\d.]+ is on its way back to you\./);
  await expect(row.locator('.order-status')).toHaveText('refunded');
  await expect(row.locator('.refund-cause')).toHaveText('Could not book a time');
  await expect(row.locator('.redeem-code, .refund')).toHaveCount(0);
  expect(await serverStatus(page, refunded)).toBe('Refunded');
  // A second request (another tab, a repeated tap) moves no money twice.
  const again = await page.request.post('/api/orders/refund', { form: { order_id: refunded, reason: 'other' } });
  expect(again.ok()).toBeTruthy();
  expect(await again.text()).toContain('AlreadyRefunded');
  // A reason outside the list is refused against its field, and nothing happens.
  // (A request of the test's own carries no browser language: it asks for English itself.)
  const bad = await page.request.post('/api/orders/refund', {
    form: { order_id: cancelled, reason: 'because' },
    headers: { 'Accept-Language': 'en' },
  });
  expect(bad.status()).toBe(400);
  expect(await bad.text()).toContain('Pick a reason from the list.');

  // The inbox says so: the refund (with the money and the reason), the payment and the cancel, unread,
  // and the header counts them; marking them read clears the count.
  await page.goto('/me/inbox');
  await waitForHydration(page);
  const refundNotice = page.locator('.notice[data-kind="order_refunded"]').first();
  await expect(refundNotice).toContainText(/Refunded: order [0-9A-Z-]+, ¥[\d.]+ back, as you asked\./);
  await expect(refundNotice).toHaveClass(/unread/);
  await expect(page.locator('.notice[data-kind="order_paid"]').first()).toBeVisible();
  await expect(page.locator('.notice[data-kind="order_cancelled"]').first()).toBeVisible();
  await expect(page.locator('.unread-badge')).toBeVisible();
  await screens(page, 'inbox');
  await page.getByRole('button', { name: 'Mark all read' }).click();
  await expect(page.locator('.unread-count')).toHaveText('0 unread');
  await expect(page.locator('.notice.unread')).toHaveCount(0);
  await expect(page.locator('.unread-badge')).toHaveCount(0); // pushed to the header, no reload

  // A notice that comes while a page is open reaches its header at once, over the inbox's stream.
  await page.goto('/shops/1');
  await waitForHydration(page);
  await expect(page.locator('.unread-badge')).toHaveCount(0);
  const voucherId = await page.locator('li.voucher:not(.flash)').first().getAttribute('data-voucher-id');
  const bought = await page.request.post('/api/orders/buy', { form: { voucher_id: voucherId! } });
  expect(bought.ok()).toBeTruthy();
  const orderId = (await bought.text()).trim(); // as text: an order id is past JavaScript's exact integers
  const cancel = await page.request.post('/api/orders/cancel', { form: { order_id: orderId } });
  expect(cancel.ok()).toBeTruthy();
  await expect(page.locator('.unread-badge')).toHaveText('1');
});

/** Ends a paid coupon's validity now, as its 30 days passing would: the one step no browser can take. The
 *  delayed check is due in 30 days, so what refunds it here is the sweeper that backs those checks up. */
function endValidity(orderId: string) {
  const db = process.env.DATABASE_URL;
  if (!db) throw new Error('DATABASE_URL is not set: run the browser tests through scripts/test.sh');
  const id = BigInt(orderId); // digits only: safe to put in the statement
  execFileSync('psql', [db, '-qc', `UPDATE orders SET use_by = now() WHERE id = ${id} AND status = 'paid'`]);
}

test('a paid coupon whose validity ends unused is refunded by itself, and the inbox says so', async ({ page }) => {
  test.setTimeout(60_000);
  await logInDemo(page, 'alice@example.com');
  const { id } = await buyNormal(page);
  await page.goto('/orders');
  await waitForHydration(page);
  const row = page.locator(`.order-list tbody tr[data-order-id="${id}"]`);
  await row.getByRole('button', { name: 'Pay' }).click();
  await expect(row.locator('.order-status')).toHaveText('paid');

  endValidity(id);
  await expect.poll(() => serverStatus(page, id), { timeout: 20_000 }).toBe('Refunded');
  await page.reload();
  await expect(row.locator('.order-status')).toHaveText('refunded');
  await expect(row.locator('.refund-cause')).toHaveText('Expired unused, refunded automatically');
  await expect(row.locator('.redeem-code, .refund')).toHaveCount(0);

  await page.goto('/me/inbox');
  await waitForHydration(page);
  await expect(page.locator('.notice[data-kind="order_refunded"]').first()).toContainText('Expired unused');
});
