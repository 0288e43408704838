// Merchant onboarding end to end: a shopper applies to open a shop (the map places it, a mistyped licence
// code is caught as it is typed), an operator approves it, the shop is found by search at once, its new
// merchant opens a coupon, and another shopper buys it.
import { test } from '@playwright/test';
import { expect, logInDemo, logInNewAccount, ONE_PIXEL_PNG, screens, uniquePhone, userPage, waitForHydration } from './helpers';

test('a shopper applies, an operator approves, the new merchant sells a coupon that a shopper buys', async ({ browser }) => {
  test.setTimeout(120_000);
  const phone = uniquePhone();
  const name = `小王面馆 ${phone.slice(-5)}`;
  const applicant = await userPage(browser);
  await logInNewAccount(applicant, phone);

  // The header's menu leads a shopper to the application.
  await waitForHydration(applicant);
  await applicant.locator('.account-button').click();
  await applicant.getByRole('link', { name: /Open your shop/ }).click();
  await expect(applicant).toHaveURL(/\/me\/open-shop$/);
  await waitForHydration(applicant);
  await applicant.fill('#business_name', name);
  await applicant.selectOption('#type_id', { index: 0 });
  await applicant.fill('#address', '文三路 100 号');
  // A tap on the map sets the coordinates.
  const map = applicant.getByTestId('pick-map');
  await map.click({ position: { x: 60, y: 40 } });
  await expect(applicant.locator('#longitude')).toHaveValue(/^120\.\d+$/);
  await expect(applicant.locator('#latitude')).toHaveValue(/^30\.\d+$/);
  await expect(map.locator('.pin')).toHaveCount(1);
  // The licence code's check character is verified as it is typed.
  await applicant.fill('#licence_no', '91350100M000100Y44');
  await expect(applicant.locator('.open-shop .hint')).toContainText('does not match');
  await applicant.fill('#licence_no', '91350100M000100Y43');
  await expect(applicant.locator('.open-shop .hint')).toContainText('checks out');
  // Sent without a photo: refused next to its field.
  await applicant.getByRole('button', { name: 'Send the application' }).click();
  await expect(applicant.locator('.field-error[data-field="shop_front"]')).toContainText('photo');
  await applicant.setInputFiles('#shop-front-file', { name: 'front.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
  await expect(applicant.locator('img.shop-front')).toHaveAttribute('src', /^\/uploads\/[0-9a-f]{32}\.png$/);
  await screens(applicant, 'onboarding-form');
  await applicant.getByRole('button', { name: 'Send the application' }).click();
  await expect(applicant.locator('.application .application-status')).toHaveText('Waiting for review 审核中');
  await screens(applicant, 'onboarding-waiting');

  // The operator approves it from the queue.
  const ops = await userPage(browser);
  await logInDemo(ops, '13800000009');
  await waitForHydration(ops);
  await ops.locator('.account-button').click();
  await ops.getByRole('link', { name: 'Applications' }).click();
  await expect(ops).toHaveURL(/\/ops\/applications$/);
  await waitForHydration(ops);
  const queued = ops.locator('.application', { hasText: name });
  await expect(queued).toContainText('91350100M000100Y43');
  await screens(ops, 'onboarding-queue');
  await queued.getByRole('button', { name: 'Approve' }).click();
  await expect(ops.locator('.saved')).toContainText('the shop is open');
  await expect(queued).toHaveCount(0);
  const shopHref = await ops.locator('.saved a').getAttribute('href');
  expect(shopHref).toMatch(/^\/shops\/\d+$/);

  // Found by search at once.
  const shopper = await userPage(browser);
  await logInDemo(shopper, '13800000002');
  await shopper.goto(`/search?q=${encodeURIComponent(name)}`);
  await expect(shopper.locator(`a[href="${shopHref}"]`).first()).toBeVisible();

  // The applicant sees the decision (and the inbox tells it), now a merchant with a console.
  await applicant.goto('/me/open-shop');
  await expect(applicant.locator('.application .application-status')).toHaveText('Approved 已通过');
  await expect(applicant.locator('.unread-badge')).toBeVisible();
  await applicant.getByRole('link', { name: 'Add its coupons' }).click();
  await expect(applicant).toHaveURL(/\/merchant\/shops\/\d+\/coupons$/);
  await waitForHydration(applicant);
  const title = `开业套餐 ${phone.slice(-4)}`;
  await applicant.fill('#coupon-title', title);
  await applicant.fill('#coupon-pay', '29.9');
  await applicant.fill('#coupon-actual', '50');
  await applicant.getByRole('button', { name: 'Add coupon' }).click();
  await expect(applicant.locator('.coupons tbody tr', { hasText: title })).toBeVisible();

  // A shopper buys it on the new shop's page.
  await shopper.goto(shopHref!);
  await waitForHydration(shopper);
  await expect(shopper.locator('h1')).toContainText(name);
  const coupon = shopper.locator('li.voucher:not(.flash)', { hasText: title });
  await coupon.locator('.buy-button').click();
  await expect(coupon.locator('.buy-result')).toContainText('created');
});
