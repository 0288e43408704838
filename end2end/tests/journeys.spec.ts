// The main journeys in the language the browser asks for — run twice, by the `chromium` project (English)
// and by `chromium-zh` (Chinese, the site's first language): a first visit, the language switch, browsing
// from the home page to a shop, and buying a coupon then paying for it in "My orders". The words expected
// are read from the translations the server is built with (app/locales), so both languages are checked
// word for word without a second copy of them here.
import { test } from '@playwright/test';
import { expect, Lang, langOf, logInNewAccount, uniquePhone, waitForHydration, words } from './helpers';

/** This run's language, its words, and the other language with its words. */
function languages() {
  const lang = langOf(test.info().project.use.locale);
  const other: Lang = lang === 'zh-CN' ? 'en' : 'zh-CN';
  return { lang, w: words(lang), other, ow: words(other) };
}

test('a first visit speaks the browser language, and the switch changes it for good', async ({ page }) => {
  const { lang, w, other, ow } = languages();
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
  await expect(page).toHaveTitle(w.common.site_title);
  await expect(page.locator('.hero h1')).toHaveText(w.storefront.hero_title);
  await expect(page.locator('.hero')).toContainText(w.storefront.hero_tagline);
  const switcher = page.locator('.language-switch');
  await expect(switcher).toHaveText(other === 'en' ? 'English' : '中文');
  await expect(switcher).toHaveAttribute('lang', other);

  // Switching from a shop page comes back to it, in the other language, and stays so on the next pages.
  await page.goto('/shops/1?from=journeys');
  await page.locator('.language-switch').click();
  await expect(page).toHaveURL(/\/shops\/1\?from=journeys$/);
  await expect(page.locator('html')).toHaveAttribute('lang', other);
  await expect(page.locator('dl.facts')).toContainText(ow.storefront.fact_per_person);
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('lang', other);
  await expect(page.locator('.hero')).toContainText(ow.storefront.hero_tagline);
  // And back.
  await page.locator('.language-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
  await expect(page.locator('.hero')).toContainText(w.storefront.hero_tagline);
});

test('browse: home → a category, sorted and filtered → a shop with its facts, map and neighbours', async ({ page }) => {
  const { w } = languages();
  await page.goto('/');
  await page.locator('a.type-tile[data-type-id="1"]').click();
  await expect(page).toHaveURL(/\/types\/1/);
  const sorts = page.getByRole('navigation', { name: w.catalog.sort });
  await expect(sorts).toContainText(w.catalog.sort_score);
  await expect(page.getByLabel(w.catalog.filter_area)).toBeVisible();
  await sorts.getByRole('link', { name: w.catalog.sort_popular }).click();
  await expect(page).toHaveURL(/sort=popular/);
  await page.locator('.shop-list a.shop-name').first().click();
  await expect(page).toHaveURL(/\/shops\/\d+/);
  const facts = page.locator('dl.facts');
  for (const key of ['fact_score', 'fact_per_person', 'fact_address', 'fact_sold']) {
    await expect(facts).toContainText(w.storefront[key]);
  }
  await expect(page.locator('#where-title')).toHaveText(w.storefront.where_title);
  await expect(page.locator('#similar-title')).toHaveText(w.storefront.similar_title);
});

test('buy: log in → buy a coupon → My orders → pay', async ({ page }) => {
  const { w } = languages();
  await logInNewAccount(page, uniquePhone());
  await page.goto('/shops/1');
  await waitForHydration(page);
  const normal = page.locator('li.voucher:not(.flash)').first();
  await normal.getByRole('button', { name: w.storefront.buy }).click();
  const result = normal.locator('.buy-result');
  await expect(result).toContainText(w.storefront.pay_in_my_orders);
  const id = await result.getAttribute('data-order-id');

  await page.goto('/orders');
  await waitForHydration(page);
  await expect(page.locator('h1')).toHaveText(w.orders.my_orders);
  const row = page.locator(`tr[data-order-id="${id}"]`);
  await expect(row.locator('.order-status')).toHaveText(w.orders.status_unpaid);
  await row.getByRole('button', { name: w.orders.pay }).click();
  await expect(page.locator('.pay-result')).toHaveText(w.orders.pay_paid);
  await expect(row.locator('.order-status')).toHaveText(w.orders.status_paid);
  // The redemption code to show at the counter.
  await expect(row).toContainText(w.orders.show_at_counter.trim());
});
