// The operators' side end to end: the dashboard's figures move with what shoppers do; a reported review
// hidden from the moderation queue shows up in the audit log — who, what, on what, why — which filters by
// action.
import { test } from '@playwright/test';
import { buyOne, expect, logInDemo, logInNewAccount, screens, uniquePhone, waitForHydration } from './helpers';

test('an operator hides a reported review and finds the action in the audit log', async ({ browser }) => {
  test.setTimeout(60_000);
  // A shopper writes a review of shop 7; another reports it.
  const author = await (await browser.newContext()).newPage();
  await logInDemo(author, '13800000002');
  const written = await author.request.post('/api/reviews/write', {
    form: {
      shop_id: '7', 'form[stars]': '1', 'form[aspect1]': '1', 'form[aspect2]': '1', 'form[aspect3]': '1',
      'form[spend]': '', 'form[body]': `The waiter on duty is an idiot (${Date.now()}).`, 'form[images]': '', 'form[tags]': '',
    },
  });
  expect(written.ok()).toBeTruthy();
  const reviewId = (await written.text()).trim();
  const reporter = await (await browser.newContext()).newPage();
  await logInDemo(reporter, '13800000003');
  const reported = await reporter.request.post('/api/reviews/report', {
    form: { review_id: reviewId, reason: 'Insults a member of staff' },
  });
  expect(reported.ok()).toBeTruthy();

  const ops = await (await browser.newContext()).newPage();
  await logInDemo(ops, '13800000009');
  await ops.goto('/ops/reviews');
  await waitForHydration(ops);
  const report = ops.locator(`.open-report[data-review-id="${reviewId}"]`);
  await report.locator('input').fill('Insults a named waiter');
  await report.getByRole('button', { name: 'Hide' }).click();
  await expect(report).toHaveCount(0);

  await ops.getByRole('link', { name: 'Audit log' }).click();
  await expect(ops).toHaveURL(/\/ops\/audit$/);
  const entry = ops.locator('.audit-entry', { hasText: `review #${reviewId}` });
  await expect(entry).toContainText('Hid a review');
  await expect(entry).toContainText('Insults a named waiter');
  await expect(entry).toContainText('运营小周 Ops Zhou');
  await ops.selectOption('#audit-action', 'review.keep');
  await ops.getByRole('button', { name: 'Filter' }).click();
  await expect(ops).toHaveURL(/action=review\.keep/);
  await expect(ops.locator('.audit-entry', { hasText: `review #${reviewId}` })).toHaveCount(0);
  await ops.goto('/ops/audit?action=review.hide');
  await expect(ops.locator('.audit-entry', { hasText: `review #${reviewId}` })).toHaveCount(1);
  await screens(ops, 'ops-audit');

  // Nobody else reads it.
  await author.goto('/ops/audit');
  await expect(author.locator('.form-error')).toHaveText('Only operators read the audit log.');
});

test("the operators' dashboard counts a new account and an order as they happen", async ({ browser }) => {
  test.setTimeout(60_000);
  const ops = await (await browser.newContext()).newPage();
  await logInDemo(ops, '13800000009');
  await ops.getByRole('link', { name: 'Operations' }).click();
  await expect(ops).toHaveURL(/\/ops$/);
  const tile = (label: string) => ops.locator('.ops-tiles li', { hasText: label }).locator('.tile-value');
  const before = { accounts: Number(await tile('New accounts today').textContent()), orders: Number(await tile('Orders today').textContent()) };
  await expect(ops.locator('.chart-box svg')).toHaveCount(5);
  // The demo's flash sales on shop 1 are listed with what is left; this instance's breakers are closed.
  await expect(ops.locator('.ops-sale').first()).toBeVisible();
  await expect(ops.locator('.ops-health .breaker')).toHaveText(['closed', 'closed', 'closed']);
  await expect(ops.getByTestId('writer-lag')).not.toBeEmpty();
  await screens(ops, 'ops-dashboard');

  // A new shopper buys a coupon; the next reading counts both.
  const shopper = await (await browser.newContext()).newPage();
  await logInNewAccount(shopper, uniquePhone());
  await buyOne(shopper);
  await ops.reload();
  await expect(tile('New accounts today')).toHaveText(String(before.accounts + 1));
  await expect(tile('Orders today')).toHaveText(String(before.orders + 1));

  // Shoppers are refused the page.
  await shopper.goto('/ops');
  await expect(shopper.locator('.ops-dashboard')).toContainText('Only operators');
});
