// Flash sale end to end: the merchant creates a sale starting in a few seconds; a shopper sees the
// countdown turn into a button without a reload, grabs once (a double click asks for one puzzle, the
// slider is dragged into the gap, the button is disabled while the grab is pending and one request is
// sent), and follows the order from "queued" to "awaiting payment" while another visitor's page shows the
// stock go down live. The puzzle refuses a grab without a pass and a miss, and the keyboard solves it.
import { test } from '@playwright/test';
import { expect, logInDemo, solvePuzzle, waitForHydration } from './helpers';

const LIVE_SALE = 1; // the seeded live flash sale on shop 1 (with the human check)

/** `YYYY-MM-DDTHH:MM:SS` in China Standard Time, `ms` from now. */
function cstIn(ms: number): string {
  return new Date(Date.now() + ms + 8 * 3600 * 1000).toISOString().slice(0, 19);
}

test('countdown → grab → queued → awaiting payment, one request per double click', async ({ browser }) => {
  test.setTimeout(90_000);
  // The merchant creates a sale that starts 12 s from now.
  const merchant = await browser.newPage();
  await logInDemo(merchant, '13800000001');
  await merchant.goto('/shops/1/sales');
  await waitForHydration(merchant);
  const title = `E2E 秒杀 ${Date.now()}`;
  await merchant.fill('#title', title);
  await merchant.fill('#rules', 'One per person');
  await merchant.fill('#pay', '9.9');
  await merchant.fill('#actual', '50');
  await merchant.fill('#stock', '3');
  await merchant.fill('#begin', cstIn(12_000));
  await merchant.fill('#end', cstIn(3_600_000));
  await merchant.getByRole('button', { name: 'Create flash sale' }).click();
  const created = merchant.locator('.saved');
  await expect(created).toContainText('created and loaded');
  const voucherId = (await created.textContent())!.match(/#(\d+)/)![1];
  const row = merchant.locator(`.sale-audit tr[data-voucher-id="${voucherId}"]`);
  await expect(row).toContainText(title);
  await expect(row.locator('td').nth(4)).toHaveText('3'); // Redis stock loaded with the row

  const page = await browser.newPage();
  await logInDemo(page, '13800000002');
  await page.goto('/shops/1');
  await waitForHydration(page);
  const card = page.locator(`li.flash[data-voucher-id="${voucherId}"]`);
  await expect(card.locator('[data-state="upcoming"]')).toBeVisible();
  await expect(card.locator('.countdown')).toHaveText(/^00:\d\d$/);
  const first = await card.locator('.countdown').textContent();
  await expect(card.locator('.countdown')).not.toHaveText(first!, { timeout: 3_000 }); // it ticks

  // Hold the grab for a second so the pending state is observable, and count the requests.
  let grabs = 0;
  let puzzles = 0;
  await page.route('**/api/seckill/puzzle', async (route) => {
    puzzles += 1;
    await route.continue();
  });
  await page.route('**/api/seckill/grab', async (route) => {
    grabs += 1;
    await new Promise((r) => setTimeout(r, 1_000));
    await route.continue();
  });
  // And every status poll, so "queued" stays on screen until the first answer arrives.
  await page.route('**/api/orders/status', async (route) => {
    await new Promise((r) => setTimeout(r, 3_000)); // longer than expect's 1 s poll interval
    await route.continue();
  });

  const button = card.locator('.grab-button');
  await expect(button).toBeVisible({ timeout: 20_000 }); // the countdown became a button, no reload
  await expect(card.locator('[data-state="live"]')).toContainText('3 left');
  // Someone else on the shop page sees the stock move without a reload.
  const watcher = await browser.newPage();
  await watcher.goto('/shops/1');
  await waitForHydration(watcher);
  const watched = watcher.locator(`li.flash[data-voucher-id="${voucherId}"] [data-state="live"]`);
  await expect(watched).toContainText('3 left');
  await button.dblclick();
  // The merchant left "buyers slide a puzzle piece" ticked: one puzzle, dragged into its gap.
  await expect(card.locator('.puzzle')).toBeVisible();
  await solvePuzzle(page, card, 'drag');
  await expect(card.locator('.puzzle')).toHaveCount(0);
  await expect(button).toBeDisabled();
  const status = card.locator('.order-status');
  await expect(status).toHaveText('queued');
  await expect(card.locator('.grab-result')).toContainText(/Got it — order [0-9A-Z]{4}-/);
  await expect(status).toHaveText('awaiting payment', { timeout: 20_000 });
  expect(grabs).toBe(1);
  expect(puzzles).toBe(1);
  await expect(watched).toContainText('2 left');
  await expect(card.locator('[data-state="live"]')).toContainText('2 left');

  await page.goto('/orders');
  await waitForHydration(page);
  await expect(page.locator('.order-list')).toContainText(title);

  // The merchant's page: the order stored (or already closed unpaid), Redis and Postgres in agreement.
  await merchant.reload();
  await expect(row.locator('.drift')).toHaveText('0');
});

test('grabbing while logged out says to log in, with a way back', async ({ page }) => {
  await page.goto('/shops/1');
  await waitForHydration(page);
  const live = page.locator('li.flash', { has: page.locator('[data-state="live"]') }).first();
  await live.locator('.grab-button').click();
  await expect(live.locator('.grab-result')).toContainText('Log in first.');
  await expect(live.locator('.grab-result a')).toHaveAttribute('href', '/login?next=/shops/1');
});

test('the puzzle: no pass, no grab; a miss draws a new one; the keyboard solves it', async ({ page }) => {
  test.setTimeout(60_000);
  await logInDemo(page, '13800000002');
  // Straight to the grab endpoint without solving anything: refused, nothing taken.
  // (A request of the test's own carries no browser language: it asks for English itself.)
  const bare = await page.request.post('/api/seckill/grab', {
    form: { voucher_id: String(LIVE_SALE) },
    headers: { 'Accept-Language': 'en' },
  });
  expect(bare.status()).toBe(400);
  expect(await bare.text()).toContain('Slide the puzzle piece into place first.');
  await page.goto('/shops/1');
  await waitForHydration(page);
  const card = page.locator(`li.flash[data-voucher-id="${LIVE_SALE}"]`);
  await card.locator('.grab-button').click();
  const first = await card.locator('.puzzle-picture image').getAttribute('href');
  expect(first).toMatch(/^data:image\/png;base64,/);
  // Nothing in the page says where the gap is: it is in the picture's pixels only.
  expect(await card.locator('.puzzle-gap').count()).toBe(0);
  await solvePuzzle(page, card, 'drag', 40);
  await expect(card.locator('.puzzle-hint')).toHaveText('Not quite in the gap: try this one.');
  // A fresh puzzle replaces it (the old one is spent).
  await expect(card.locator('.puzzle-hint')).toContainText('Slide the piece into the gap', { timeout: 5_000 });
  expect(await card.locator('.puzzle-picture image').getAttribute('href')).not.toBe(first);
  await solvePuzzle(page, card, 'keys');
  await expect(card.locator('.grab-result')).toContainText(/Got it — order [0-9A-Z]{4}-/, { timeout: 10_000 });
});
