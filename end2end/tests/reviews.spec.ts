// Reviews (点评): a shopper who redeemed a coupon writes a review with a photo, sees the "verified visit" mark
// and the shop's figures move; the merchant replies; another shopper votes it helpful; the rankings list
// the shop. The shop page and the rankings are photographed at phone and desktop width.
import { Page, test } from '@playwright/test';
import { expect, logInDemo, ONE_PIXEL_PNG, screens as shoot, userPage, waitForHydration } from './helpers';

const MERCHANT = '13800000001'; // owns shop 1, which the demo data gives 80 fairly good reviews
const REVIEWER = '13800000003'; // 小张 Xiao Zhang
const VOTER = 'alice@example.com';

const screens = (page: Page, name: string) => shoot(page, `reviews-${name}`);

test('a verified review moves the figures, gets a reply and a helpful vote, and the rankings list the shop', async ({ browser }) => {
  test.setTimeout(150_000);
  // The shopper buys shop 1's coupon, pays, and the merchant redeems it at the counter.
  const shopper = await userPage(browser);
  await logInDemo(shopper, REVIEWER);
  await shopper.goto('/shops/1');
  await waitForHydration(shopper);
  const coupon = shopper.locator('li.voucher:not(.flash)').first();
  await coupon.locator('.buy-button').click();
  await expect(coupon.locator('.buy-result')).toContainText('created');
  const orderId = await coupon.locator('.buy-result').getAttribute('data-order-id');
  await shopper.goto('/orders');
  await waitForHydration(shopper);
  const row = shopper.locator(`.order-list tbody tr[data-order-id="${orderId}"]`);
  await row.getByRole('button', { name: 'Pay' }).click();
  await expect(row.locator('.order-status')).toHaveText('paid');
  const code = ((await row.locator('.redeem-code .code').textContent()) ?? '').trim();
  const merchant = await userPage(browser);
  await logInDemo(merchant, MERCHANT);
  await merchant.goto('/merchant/redeem');
  await waitForHydration(merchant);
  await merchant.fill('#redeem-code', code);
  await merchant.getByRole('button', { name: 'Redeem' }).click();
  await expect(merchant.locator('.redeem-result.ok')).toBeVisible();

  // The figures before: how many reviews, how many with five stars.
  await shopper.goto('/shops/1');
  await waitForHydration(shopper);
  const before = Number(await shopper.locator('.rating-score').getAttribute('data-reviews'));
  const fivesBefore = Number(await shopper.locator('.star-hist li[data-stars="5"] .hist-count').textContent());
  expect(before).toBeGreaterThanOrEqual(5);

  // A review that is too short is refused next to its field; then the real one, with a photo.
  await shopper.locator('.review-form summary').click();
  await shopper.selectOption('#stars', '5');
  await shopper.selectOption('#aspect1', '5');
  await shopper.selectOption('#aspect2', '4');
  await shopper.selectOption('#aspect3', '5');
  await shopper.fill('#review-body', '太短');
  await shopper.getByRole('button', { name: 'Publish the review' }).click();
  await expect(shopper.locator('.field-error[data-field="body"]')).toContainText('15 to 2000');
  await shopper.fill('#spend', '88');
  await shopper.fill('#review-body', '剪得很用心，发型师会根据脸型给建议，环境干净，下次还来。');
  await shopper.fill('#tags', '技术好, 环境好');
  await shopper.setInputFiles('#review-files', { name: 'dot.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
  await expect(shopper.locator('.review-form .upload-status')).toContainText('1 image(s) added');
  await shopper.getByRole('button', { name: 'Publish the review' }).click();
  await expect(shopper.locator('.review-saved')).toBeVisible();

  // After a reload: one more review, one more five, and the review on top with its mark and photo.
  await shopper.reload();
  await waitForHydration(shopper);
  await expect(shopper.locator('.rating-score')).toHaveAttribute('data-reviews', String(before + 1));
  await expect(shopper.locator('.star-hist li[data-stars="5"] .hist-count')).toHaveText(String(fivesBefore + 1));
  const mine = shopper.locator('li.review', { hasText: '剪得很用心' });
  await expect(mine.locator('.verified-visit')).toBeVisible();
  await expect(mine.locator('.review-photos img')).toHaveCount(1);
  await expect(mine.locator('.review-tags li')).toHaveText(['技术好', '环境好']);
  await expect(shopper.locator('.review-form summary')).toHaveText('Edit your review');
  await screens(shopper, 'shop');

  // The merchant sees it unanswered on the console and replies on the shop page.
  await merchant.goto('/merchant');
  await expect(merchant.locator('.shop-card[data-shop-id="1"] .unanswered-reviews')).toContainText('unanswered');
  await merchant.goto('/shops/1');
  await waitForHydration(merchant);
  const theirs = merchant.locator('li.review', { hasText: '剪得很用心' });
  await theirs.locator('.reply-form summary').click();
  await theirs.locator('.reply-form textarea').fill('谢谢支持，欢迎再来！');
  await theirs.getByRole('button', { name: 'Save the reply' }).click();
  await expect(theirs.locator('.review-reply')).toContainText('谢谢支持');
  await merchant.goto('/merchant/shops/1/reviews');
  await waitForHydration(merchant);
  await merchant.getByRole('button', { name: 'All' }).click();
  await expect(merchant.locator('li.review', { hasText: '剪得很用心' }).locator('.review-reply')).toContainText('谢谢支持');
  await screens(merchant, 'console');

  // Another shopper finds it helpful: once.
  const voter = await userPage(browser);
  await logInDemo(voter, VOTER);
  await voter.goto('/shops/1');
  await waitForHydration(voter);
  const seen = voter.locator('li.review', { hasText: '剪得很用心' });
  await expect(seen.locator('.review-reply')).toContainText('谢谢支持');
  await seen.locator('.helpful-button').click();
  await expect(seen.locator('.helpful-count')).toHaveText('1');
  await expect(seen.locator('.helpful-button')).toHaveAttribute('aria-pressed', 'true');
  await voter.reload();
  await waitForHydration(voter);
  await expect(voter.locator('li.review', { hasText: '剪得很用心' }).locator('.helpful-count')).toHaveText('1');

  // The rankings of the shop's kind list it; the home page links there.
  const kind = ((await voter.locator('.shop p.muted').first().textContent()) ?? '').split(' · ')[0].trim();
  await voter.goto('/');
  await voter.locator('a.rankings-link').click();
  await expect(voter.locator('.rankings h1')).toContainText('Rankings');
  await voter.locator('.rankings nav a.chip', { hasText: kind }).click();
  await expect(voter.locator('.rankings h2')).toContainText(kind);
  await expect(voter.locator('li.ranked-shop[data-shop-id="1"]')).toBeVisible();
  await screens(voter, 'rankings');
});

test('a visitor sorts, filters and pages through the reviews by links that keep their place', async ({ page }) => {
  // Shop 1's demo reviews fill several pages; each page is read on the server, so the browser follows links.
  await page.goto('/shops/1');
  const ids = () => page.locator('li.review').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.reviewId));
  const first = await ids();
  expect(first.length).toBe(10);
  await page.locator('a.more-reviews').click();
  await expect(page).toHaveURL(/after=/);
  const second = await ids();
  expect(second.length).toBeGreaterThan(0);
  expect(second.filter((id) => first.includes(id))).toEqual([]);
  await page.locator('a.first-reviews').click();
  await expect(page).not.toHaveURL(/after=/);
  expect(await ids()).toEqual(first);

  // Five stars only, then only those with photos: each choice is marked, and every review shown fits it.
  await page.locator('.review-controls a', { hasText: '5★' }).click();
  await expect(page).toHaveURL(/stars=5/);
  await expect(page.locator('.review-controls a[aria-current="true"]', { hasText: '5★' })).toBeVisible();
  const stars = await page.locator('li.review .review-stars').allTextContents();
  expect(stars.length).toBeGreaterThan(0);
  expect(new Set(stars)).toEqual(new Set(['★★★★★']));
  await page.locator('.review-controls a', { hasText: 'With photos' }).click();
  await expect(page).toHaveURL(/stars=5&photos=1/);
  const withPhotos = await page.locator('li.review').all();
  expect(withPhotos.length).toBeGreaterThan(0);
  for (const review of withPhotos) {
    await expect(review.locator('.review-stars')).toHaveText('★★★★★');
    await expect(review.locator('.review-photos img').first()).toBeVisible();
  }
  // Sorted by the votes, the filters stay.
  await page.locator('.review-controls a', { hasText: 'Most helpful' }).click();
  await expect(page).toHaveURL(/sort=helpful&stars=5&photos=1/);
  await screens(page, 'filtered');
});
