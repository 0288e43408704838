// Catalog end to end: home → category → page 2 → shop; unknown id → 404; the merchant edits his shop.
import { Locator, test } from '@playwright/test';
import { expect, logInDemo, logInNewAccount, ONE_PIXEL_PNG, screens, uniquePhone, waitForHydration } from './helpers';

test('browse from home through a category to a shop', async ({ page }) => {
  await page.goto('/');
  await page.locator('.type-tile').first().click();
  await expect(page).toHaveURL(/\/types\/1/);
  await expect(page.locator('.shop-row')).toHaveCount(20);
  await page.reload();
  await waitForHydration(page); // the server-rendered category page hydrates without a mismatch

  await page.getByRole('link', { name: 'Price ↑' }).click();
  await expect(page).toHaveURL(/sort=price_asc/);
  const firstPage = await page.locator('.shop-name').allTextContents();
  await page.getByRole('link', { name: 'Next →' }).click();
  await expect(page).toHaveURL(/sort=price_asc.*page=2|page=2.*sort=price_asc/);
  await expect(page.locator('.pager')).toContainText('Page 2');
  const secondPage = await page.locator('.shop-name').allTextContents();
  expect(secondPage.filter((n) => firstPage.includes(n))).toHaveLength(0);

  // The demo sells coupons at shops 1–300: open the first of them on this page (or the next ones).
  let shop: string | undefined;
  for (let pages = 0; !shop && pages < 8; pages++) {
    const links = await page.locator('.shop-name').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    shop = links.find((href) => Number(href.split('/').pop()) <= 300);
    if (!shop) {
      await page.getByRole('link', { name: 'Next →' }).click();
      await expect(page.locator('.pager')).toContainText(`Page ${pages + 3}`);
    }
  }
  const link = page.locator(`.shop-name[href="${shop}"]`);
  const name = (await link.textContent())!.trim();
  await link.click();
  await expect(page.locator('.shop-title')).toHaveText(name);
  await page.reload();
  await waitForHydration(page);
  await expect(page.locator('.shop-address')).not.toBeEmpty();
  await expect(page.locator('.uv')).toContainText('visitors today');
  await expect(page.locator('.voucher').first()).toBeVisible();
});

test('the home page shows the flash sales on now and coming, live first, each leading to its shop', async ({ page }) => {
  await page.goto('/');
  await waitForHydration(page);
  const strip = page.locator('.sales-now');
  await expect(strip.getByRole('heading', { name: 'Flash sales' })).toBeVisible();
  // The demo's running sale, with what is left as Redis counts it (shop 1 sells 100).
  const live = strip.locator('.sale-teaser', { hasText: '限时秒杀 ¥100 代金券' });
  await expect(live.locator('.sale-shop')).not.toBeEmpty();
  await expect(live.locator('.sale-price')).toHaveText('¥19.90');
  await expect(live.locator('.sale-state')).toHaveAttribute('data-state', 'live');
  expect(Number(await live.locator('.stock-left').textContent())).toBeGreaterThan(0);
  // The demo's next sale starts 45 minutes after the seed: counting down, or on by now on a very slow run.
  const next = strip.locator('.sale-teaser', { hasText: '整点秒杀 ¥200 代金券' });
  const state = await next.locator('.sale-state').getAttribute('data-state');
  expect(['upcoming', 'live']).toContain(state);
  if (state === 'upcoming') {
    const first = await next.locator('.countdown').textContent();
    await expect(next.locator('.countdown')).not.toHaveText(first!, { timeout: 3_000 }); // it ticks
  }
  // Yesterday's sale is over: not shown. Live ones come before those still to come.
  await expect(strip.locator('.sale-teaser', { hasText: '昨日秒杀' })).toHaveCount(0);
  const states = await strip.locator('.sale-state').evaluateAll((ps) => ps.map((p) => p.getAttribute('data-state')));
  expect(states.indexOf('live')).toBe(0);
  expect(states.lastIndexOf('live')).toBeLessThan(states.includes('upcoming') ? states.indexOf('upcoming') : states.length);
  await live.getByRole('link').click();
  await expect(page).toHaveURL(/\/shops\/1$/);
  await expect(page.locator('li.voucher.flash', { hasText: '限时秒杀 ¥100 代金券' })).toBeVisible();
});

/** A tile's distance ("850 m", "2.3 km") in metres and its score ("★ 4.6 · 12 reviews"). */
async function tiles(row: Locator): Promise<{ m: number; score: number }[]> {
  return row.locator('.shop-tile').evaluateAll((ts) =>
    ts.map((t) => {
      const [, n, unit] = /([\d.]+) (m|km)/.exec(t.querySelector('.tile-note')!.textContent!)!;
      const score = Number(/★ ([\d.]+)/.exec(t.querySelector('.tile-score')!.textContent!)![1]);
      return { m: Number(n) * (unit === 'km' ? 1000 : 1), score };
    }),
  );
}

test('the home page shows the best rated shops around an area, or near the browser when it shares where it is', async ({ browser }) => {
  const context = await browser.newContext({
    geolocation: { latitude: 30.2785, longitude: 120.1625 }, // Wulin
    permissions: ['geolocation'],
  });
  const page = await context.newPage();
  await page.goto('/');
  await waitForHydration(page);
  const row = page.locator('#best-near');
  await expect(row.getByRole('heading', { level: 2 })).toHaveText('Best rated around 湖滨 Hubin');
  // Rated shops of any kind within 3 km, the best score first.
  const around = await tiles(row);
  expect(around.length).toBeGreaterThan(0);
  expect(around.every((t) => t.m <= 3000)).toBe(true);
  expect(around.map((t) => t.score)).toEqual([...around.map((t) => t.score)].sort((a, b) => b - a));
  // Another area, chosen in place.
  await row.getByLabel('Around').selectOption({ label: '武林 Wulin' });
  await row.getByRole('button', { name: 'Show' }).click();
  await expect(page).toHaveURL(/near=1#best-near$/);
  await expect(row.getByRole('heading', { level: 2 })).toHaveText('Best rated around 武林 Wulin');
  // Where the browser is.
  await waitForHydration(page);
  await row.getByRole('button', { name: 'Use my location' }).click();
  await expect(page).toHaveURL(/\?lon=120\.1625\d*&lat=30\.2785\d*#best-near$/);
  await expect(row.getByRole('heading', { level: 2 })).toHaveText('Best rated near you');
  const near = await tiles(row);
  expect(near.length).toBeGreaterThan(0);
  expect(near.every((t) => t.m <= 3000)).toBe(true);
  await row.locator('.shop-tile a').first().click();
  await expect(page).toHaveURL(/\/shops\/\d+$/);
  await context.close();
});

test('a shopper finds the shops they opened under Recently viewed, the latest first, and can clear it', async ({ page }) => {
  await logInNewAccount(page, uniquePhone());
  await page.goto('/');
  await expect(page.locator('.recently-viewed')).toHaveCount(0); // a new account has opened nothing
  for (const id of [2, 1, 3, 1]) {
    await page.goto(`/shops/${id}`);
    await expect(page.locator('.shop-title')).toBeVisible();
  }
  await page.goto('/');
  await waitForHydration(page);
  const row = page.locator('.recently-viewed');
  const ids = await row.locator('.shop-tile').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-shop-id')));
  expect(ids).toEqual(['1', '3', '2']);
  await row.getByRole('button', { name: 'Clear' }).click();
  await expect(row).toBeHidden();
  await page.reload();
  await expect(page.locator('.recently-viewed')).toHaveCount(0);
});

test('the home page shows the first places of the rankings, each leading to its whole ranking', async ({ page }) => {
  await page.goto('/');
  const tops = page.locator('.ranking-tops');
  await expect(tops.getByRole('heading', { name: 'Rankings 榜单' })).toBeVisible();
  const podium = tops.locator('.podium').first();
  await expect(podium.locator('.ranked-shop')).not.toHaveCount(0);
  const places = await podium.locator('.place').allTextContents();
  expect(places).toEqual(places.map((_, i) => String(i + 1)));
  const typeId = await podium.getAttribute('data-type-id');
  const first = (await podium.locator('.ranked-shop a').first().textContent())!.trim();
  await podium.getByRole('heading').getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/rankings\\?type=${typeId}$`));
  await expect(page.locator('.ranking .ranked-shop a').first()).toHaveText(first);
});

test('a shop page shows where the shop is, with similar shops nearby, beside the shop on a desktop', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/shops/1');
  const name = (await page.locator('.shop-title').textContent())!.trim();
  const side = page.locator('.shop-side');
  await expect(side.locator('.nearby-map .you-label')).toHaveText(name);
  const similar = side.locator('.similar-list .shop-row');
  const n = await similar.count();
  expect(n).toBeGreaterThan(0);
  expect(n).toBeLessThanOrEqual(5);
  await expect(side.locator('.nearby-map .pin')).toHaveCount(n);
  const metres = await similar.locator('.distance').evaluateAll((ds) =>
    ds.map((d) => {
      const [, v, unit] = /([\d.]+) (m|km)/.exec(d.textContent!)!;
      return Number(v) * (unit === 'km' ? 1000 : 1);
    }),
  );
  expect(metres).toEqual([...metres].sort((a, b) => a - b));
  expect(metres.every((m) => m <= 3000)).toBe(true);
  // Two columns on a desktop (the side to the right of the shop), one on a phone (the side below it).
  let main = (await page.locator('.shop-main').boundingBox())!;
  let aside = (await side.boundingBox())!;
  expect(aside.x).toBeGreaterThanOrEqual(main.x + main.width);
  await page.setViewportSize({ width: 390, height: 900 });
  main = (await page.locator('.shop-main').boundingBox())!;
  aside = (await side.boundingBox())!;
  expect(aside.y).toBeGreaterThanOrEqual(main.y + main.height);
  // A similar shop opens from the list.
  const other = (await similar.first().locator('.shop-name').textContent())!.trim();
  await similar.first().locator('.shop-name').click();
  await expect(page.locator('.shop-title')).toHaveText(other);
});

test('a category and a search narrow to an area, a price and a rating, and keep them while sorting and paging', async ({ page }) => {
  await page.goto('/types/1');
  const filters = page.locator('form.filters');
  await filters.getByLabel('Per person').selectOption({ label: '¥50–100' });
  await filters.getByLabel('Rating').selectOption({ label: '★ 4.0 and up' });
  await filters.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/price=50-100/);
  await expect(page).toHaveURL(/rating=4/);
  const rows = page.locator('.shop-row .muted');
  const check = async () => {
    const lines = await rows.allTextContents();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const score = Number(/★ ([\d.]+)/.exec(line)![1]);
      const price = Number(/¥([\d.]+) \/ person/.exec(line)![1]);
      expect(score).toBeGreaterThanOrEqual(4);
      expect(price).toBeGreaterThanOrEqual(50);
      expect(price).toBeLessThan(100);
    }
    return lines;
  };
  await check();
  // Sorting keeps the filters; the form shows them chosen.
  await page.getByRole('link', { name: 'Price ↑' }).click();
  await expect(page).toHaveURL(/sort=price_asc.*price=50-100.*rating=4/);
  const prices = (await check()).map((l) => Number(/¥([\d.]+) \/ person/.exec(l)![1]));
  expect(prices).toEqual([...prices].sort((a, b) => a - b));
  await expect(filters.getByLabel('Per person')).toHaveValue('50-100');
  // An area narrows further (the first shop's, so something is left); a search offers the same filters.
  const area = (await rows.first().textContent())!.split(' · ')[3];
  await filters.getByLabel('Area').selectOption({ label: area });
  await filters.getByRole('button', { name: 'Filter' }).click();
  for (const line of await check()) expect(line).toContain(area);
  await page.goto('/search?q=%E7%81%AB%E9%94%85&price=0-50');
  for (const line of await page.locator('.shop-row .muted').allTextContents()) {
    expect(Number(/¥([\d.]+) \/ person/.exec(line)![1])).toBeLessThan(50);
  }
  await expect(page.locator('form.filters').getByLabel('Per person')).toHaveValue('0-50');
});

test('an unknown shop id shows the 404 page', async ({ page }) => {
  const response = await page.goto('/shops/987654321');
  expect(response?.status()).toBe(404);
  await expect(page.locator('.not-found')).toContainText('Shop not found.');
});

test('search finds shops by name', async ({ page }) => {
  await page.goto('/');
  await page.fill('input[name=q]', '火锅');
  await page.click('.search-box button');
  await expect(page).toHaveURL(/\/search\?q=/);
  await expect(page.locator('.shop-row').first()).toContainText('火锅');
});

test('the merchant edits his shop name and sees it', async ({ page }) => {
  await logInDemo(page, '13800000001');
  await page.goto('/shops/2');
  await waitForHydration(page);
  await expect(page.locator('.uv-week tr')).toHaveCount(7);
  // A client-side navigation: only works if the shop page hydrated cleanly.
  await page.getByRole('link', { name: 'Edit this shop' }).click();
  await expect(page).toHaveURL(/\/shops\/2\/edit$/);
  await waitForHydration(page);
  const newName = `王老板的店 ${Date.now() % 100000}`;
  await page.fill('#name', newName);
  await page.click('button[type=submit]');
  await expect(page.locator('.saved')).toBeVisible();
  await page.goto('/shops/2');
  await expect(page.locator('.shop-title')).toHaveText(newName);
});

test("every shop shows its own picture, drawn at seed time, at a fixed size", async ({ page }) => {
  await page.goto('/types/1');
  const pictures = page.locator('.shop-row img');
  await expect(pictures).toHaveCount(20);
  const sources = await pictures.evaluateAll((imgs) => imgs.map((i) => i.getAttribute('src')));
  // Shops opened by other tests have no picture yet; every seeded one has its own.
  const seeded = sources.filter((s) => /^\/uploads\/shops\/\d+\.svg$/.test(s ?? ''));
  expect(seeded.length).toBeGreaterThanOrEqual(18);
  expect(new Set(seeded).size, 'one picture per shop').toBe(seeded.length);
  for (const img of await pictures.all()) {
    await expect(img).toHaveAttribute('width', '96');
    await expect(img).toHaveAttribute('height', '60');
    await expect(img).toHaveAttribute('loading', 'lazy');
  }
  const first = await page.locator('.shop-row img[src^="/uploads/shops/"]').first().evaluate(async (img: HTMLImageElement) => {
    await img.decode();
    return { w: img.naturalWidth, src: img.currentSrc };
  });
  expect(first.w, 'the picture loads').toBeGreaterThan(0);
});

test('the merchant adds a photo to his shop from the edit form', async ({ page }) => {
  await logInDemo(page, '13800000001');
  await page.goto('/shops/3/edit');
  await waitForHydration(page);
  await page.setInputFiles('#shop-photos', { name: 'front.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
  await expect(page.locator('.upload-status')).toHaveText('1 image(s) added.');
  await expect(page.locator('#images')).toHaveValue(/\n\/uploads\/[0-9a-f]{32}\.png$/);
  const added = (await page.locator('#images').inputValue()).split('\n').pop()!;
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('.saved')).toBeVisible();
  await page.goto('/shops/3');
  await expect(page.locator(`.gallery-tiles img[src="${added}"]`)).toHaveCount(1);
});

test("a shop's photos open full size, one after another, and close again", async ({ page }) => {
  await page.goto('/shops/1');
  const tiles = page.locator('.gallery-tiles li');
  await expect(tiles).toHaveCount(4);
  await expect(page.locator('.gallery-all')).toHaveText('All 4 photos');
  await expect(page.locator('.lightbox').first()).toBeHidden();
  await tiles.nth(1).locator('a').click();
  const second = page.locator('#photo-2');
  await expect(second).toBeVisible();
  await expect(second.locator('.lightbox-count')).toHaveText('2 / 4');
  await screens(page, 'shop-photo');
  await second.getByRole('link', { name: 'Next photo' }).click();
  await expect(page.locator('#photo-3')).toBeVisible();
  await expect(second).toBeHidden();
  // From the last, "next" comes round to the first.
  await page.locator('#photo-3').getByRole('link', { name: 'Next photo' }).click();
  await page.locator('#photo-4').getByRole('link', { name: 'Next photo' }).click();
  await expect(page.locator('#photo-1')).toBeVisible();
  await page.locator('#photo-1').getByRole('link', { name: 'Close the photo' }).click();
  await expect(page.locator('.lightbox:visible')).toHaveCount(0);
  await expect(page).toHaveURL(/#gallery$/);
});

test('a shopper cannot edit a shop', async ({ page }) => {
  await logInDemo(page, '13800000002');
  await page.goto('/shops/2/edit');
  await expect(page.locator('.form-error')).toContainText('only edit your own shops');
});

test('a shopper saves a shop from its page and from a list, and finds both under Favourites', async ({ page }) => {
  await logInDemo(page, 'alice@example.com');
  await page.goto('/shops/2');
  await waitForHydration(page);
  const name = (await page.locator('.shop-title').textContent())!.trim();
  const heart = page.locator('.shop .favourite-button');
  const count = page.locator('.shop .favourite-count');
  const before = Number((await count.textContent())!.match(/\d+/)![0]);
  await expect(heart).toHaveAttribute('aria-pressed', 'false');
  await heart.click();
  await expect(heart).toHaveAttribute('aria-pressed', 'true');
  await expect(heart).toContainText('Saved');
  await expect(count).toHaveText(`${before + 1} saved`);
  await page.reload();
  await expect(page.locator('.shop .favourite-button')).toHaveAttribute('aria-pressed', 'true'); // kept, not a browser state

  // A card of the category list: its heart saves in place, without leaving the list.
  await page.goto('/types/2');
  await waitForHydration(page);
  const card = page.locator('.shop-row').nth(3);
  const cardName = (await card.locator('.shop-name').textContent())!.trim();
  await card.locator('.favourite-button').click();
  await expect(card.locator('.favourite-button')).toHaveAttribute('aria-pressed', 'true');
  await expect(page).toHaveURL(/\/types\/2/);

  await page.goto('/me/favourites');
  await expect(page.locator('.favourites-total')).toContainText('saved shops');
  await expect(page.locator('.shop-name').first()).toHaveText(cardName); // the latest saved first
  await expect(page.locator('.shop-name', { hasText: name })).toBeVisible();

  // Un-saving from the list; after a reload the shop is gone from it.
  await waitForHydration(page);
  await page.locator('.shop-row', { hasText: cardName }).locator('.favourite-button').click();
  await expect(page.locator('.shop-row', { hasText: cardName }).locator('.favourite-button')).toHaveAttribute('aria-pressed', 'false');
  await page.reload();
  await expect(page.locator('.shop-name', { hasText: cardName })).toHaveCount(0);
  await page.screenshot({ path: 'test-results/favourites.png', fullPage: true });
});

test('saving a shop while logged out says to log in', async ({ page }) => {
  await page.goto('/shops/3');
  await waitForHydration(page);
  await page.locator('.shop .favourite-button').click();
  await expect(page.locator('.favourite-note')).toContainText('to save shops');
  await expect(page.locator('.favourite-note a')).toHaveAttribute('href', '/login?next=/shops/3');
});

test('the search box suggests shops as you type; lists narrow to the shops open now and sort nearest first', async ({ browser }) => {
  const context = await browser.newContext({
    geolocation: { latitude: 30.2565, longitude: 120.1645 }, // Hubin
    permissions: ['geolocation'],
    locale: 'en-US',
  });
  const page = await context.newPage();
  await page.goto('/');
  await waitForHydration(page);
  const box = page.locator('#q');
  await box.pressSequentially('火锅', { delay: 60 });
  const options = page.locator('#q-suggestions [role=option]');
  await expect(options.first()).toBeVisible();
  await expect(box).toHaveAttribute('aria-expanded', 'true');
  const names = await page.locator('#q-suggestions .suggestion-name').allTextContents();
  expect(names.length).toBeGreaterThan(0);
  expect(names.length).toBeLessThanOrEqual(8);
  for (const n of names) expect(n).toContain('火锅');
  // The keyboard picks one and Enter opens it.
  await box.press('ArrowDown');
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await box.press('Enter');
  await expect(page).toHaveURL(/\/shops\/\d+$/);
  await expect(page.locator('.shop-title')).toHaveText(names[0]);
  // The shop says whether it is open now, and its week on request.
  await expect(page.locator('.shop-hours .today-hours')).toContainText('Today');
  await page.locator('.week-hours summary').click();
  await expect(page.locator('.week-hours tr')).toHaveCount(7);

  // "Open now" narrows a category to shops that say they are open.
  await page.goto('/types/1');
  await waitForHydration(page);
  await page.locator('form.filters').getByLabel('Open now').check();
  await page.locator('form.filters').getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/open=1/);
  // Some of the demo's shops never close, so there is always one.
  const open = page.locator('.shop-row .shop-name');
  await expect(open.first()).toBeVisible();
  await open.first().click();
  await expect(page.locator('.open-state')).toContainText('Open now');
  await page.goBack();
  // "Nearest" asks the browser where it is and keeps the filter; rows say how far, nearest first.
  await waitForHydration(page);
  await page.getByRole('link', { name: 'Nearest' }).click();
  await expect(page).toHaveURL(/sort=distance.*open=1.*lon=120\.1645\d*&lat=30\.2565/);
  const metres = (await page.locator('.shop-distance').allTextContents()).map((t) =>
    t.endsWith(' km') ? Number.parseFloat(t) * 1000 : Number.parseFloat(t),
  );
  expect(metres).toEqual([...metres].sort((a, b) => a - b));
  await context.close();
});

test('sorting by distance without a place says how to give one', async ({ page }) => {
  await page.goto('/types/1?sort=distance');
  await expect(page.locator('.sort-unplaced')).toContainText('We do not know where you are');
  await expect(page.locator('.shop-distance')).toHaveCount(0);
});
