// Nearby search end to end: from the home page to a list of shops nearest first, with distances, across pages.
import { test } from '@playwright/test';
import { expect, logInDemo, waitForHydration } from './helpers';

async function distances(page: import('@playwright/test').Page): Promise<number[]> {
  return (await page.locator('.nearby-list .distance').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-m')))));
}

test('nearby shops come nearest first with their distances, page after page', async ({ page }) => {
  await page.goto('/');
  await page.locator('.nearby-link').click();
  await expect(page).toHaveURL(/\/nearby/);
  await waitForHydration(page);
  await page.selectOption('#type', { index: 0 });
  await page.selectOption('#area', { index: 0 });
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.locator('.nearby-list .shop-row')).toHaveCount(20);
  await expect(page.locator('.nearby-list .distance').first()).toHaveText(/^\d+ m$|^\d+\.\d km$/);
  const first = await distances(page);
  expect(first).toEqual([...first].sort((a, b) => a - b));
  expect(Math.max(...first)).toBeLessThanOrEqual(5_000);

  await page.getByRole('link', { name: 'Next →' }).click();
  await expect(page.locator('.pager')).toContainText('Page 2');
  const second = await distances(page);
  expect(second.length).toBeGreaterThan(0);
  expect(second).toEqual([...second].sort((a, b) => a - b));
  expect(second[0]).toBeGreaterThanOrEqual(first[first.length - 1]);
  // Page 2 was drawn in the browser (a client-side navigation): its pins are SVG links, numbered on.
  await expect(page.locator('.nearby-map a.pin')).toHaveCount(second.length);
  const pin21 = page.getByRole('link', { name: /^21\. / });
  expect(await pin21.evaluate((a) => a.namespaceURI)).toBe('http://www.w3.org/2000/svg');
});

test('the map pins the shops of the list, numbered alike, and a pin leads to its shop', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto('/nearby?type=1&area=0');
  const rows = page.locator('.nearby-list .shop-row');
  await expect(rows).toHaveCount(20);
  const pins = page.locator('.nearby-map .pin');
  await expect(pins).toHaveCount(20);
  await expect(page.locator('.nearby-map')).toContainText('You are here');
  // Pin 1 is the nearest shop, the first of the list; it sits nearer the middle than pin 20.
  const firstName = await rows.first().locator('.shop-name').textContent();
  await expect(page.getByRole('link', { name: `1. ${firstName}`, exact: true })).toHaveCount(1);
  const box = (await page.locator('.nearby-map svg').boundingBox())!;
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const reach = async (n: number) => {
    const b = (await page.getByRole('link', { name: new RegExp(`^${n}\\. `) }).boundingBox())!;
    return Math.hypot(b.x + b.width / 2 - centre.x, b.y + b.height - centre.y);
  };
  expect(await reach(1)).toBeLessThan(await reach(20));
  // Following a pin (before or after hydration: it is a plain link) scrolls to its shop.
  const twelfth = rows.nth(11);
  // Pins of neighbouring shops overlap; a keyboard user reaches each one all the same.
  await page.getByRole('link', { name: /^12\. / }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`#${await twelfth.getAttribute('id')}$`));
  await expect(twelfth).toBeInViewport();
});

test('a bad radius is explained under its field', async ({ page }) => {
  await page.goto('/nearby?type=1&area=0&r=99');
  await expect(page.locator('.field-error[data-field="radius"]')).toHaveText('The radius is 0.1 to 50 km.');
  await expect(page.locator('#radius')).toHaveValue('99');
  await expect(page.locator('.nearby-list')).toHaveCount(0);
});

test('bad coordinates are explained', async ({ page }) => {
  await page.goto('/nearby?type=1&lon=999&lat=30.2');
  await expect(page.locator('.form-error')).toContainText('Longitude is a number from -180 to 180.');
});

test('"Use my location" searches around where the browser is', async ({ browser }) => {
  const context = await browser.newContext({
    geolocation: { latitude: 30.2785, longitude: 120.1625 }, // Wulin
    permissions: ['geolocation'],
  });
  const page = await context.newPage();
  await page.goto('/nearby');
  await waitForHydration(page);
  await page.getByRole('button', { name: 'Use my location' }).click();
  await expect(page).toHaveURL(/lon=120\.1625\d*&lat=30\.2785/);
  await expect(page.locator('.nearby-list .shop-row').first()).toBeVisible();
  const first = await distances(page);
  expect(first).toEqual([...first].sort((a, b) => a - b));
  await context.close();
});

test('a browser that refuses its location is told to choose an area', async ({ page }) => {
  await page.goto('/nearby');
  await waitForHydration(page);
  await page.getByRole('button', { name: 'Use my location' }).click();
  await expect(page.locator('.locate-status')).toHaveText('Your browser did not share a location — choose an area instead.');
});

test('a shop a merchant opens is found nearby at once', async ({ page }) => {
  await logInDemo(page, '13800000001');
  await page.goto('/shops/new');
  await waitForHydration(page);
  const name = `E2E 新店 ${Date.now()}`;
  await page.selectOption('#type_id', { index: 0 });
  await page.fill('#name', name);
  await page.fill('#address', '杭州市上城区延安路100号');
  await page.fill('#longitude', '120.3500');
  await page.fill('#latitude', '30.1000');
  await page.fill('#avg_price', '66');
  // The hours start empty (not given); this one opens at 10:00-22:00 on weekdays and rests at weekends.
  await expect(page.locator('#hours_mon')).toHaveValue('');
  for (const day of ['mon', 'tue', 'wed', 'thu', 'fri']) await page.fill(`#hours_${day}`, '10:00-22:00');
  await page.getByRole('button', { name: 'Open the shop' }).click();
  await expect(page.locator('.saved')).toContainText('Opened.');
  const typeId = await page.locator('#type_id').inputValue();
  await page.goto(`/nearby?type=${typeId}&lon=120.35&lat=30.1&r=1`);
  await expect(page.locator('.nearby-list .shop-row').first()).toContainText(name);
  await expect(page.locator('.nearby-list .distance').first()).toHaveText(/^\d+ m$/);
});

test('the nearby list narrows to a price band and the shops open now, nearest first, and keeps them', async ({ page }) => {
  await page.goto('/nearby?type=1&area=0');
  const filters = page.locator('form.filters');
  await filters.getByLabel('Per person').selectOption({ label: '¥100–200' });
  await filters.getByLabel('Open now').check();
  await filters.getByRole('button', { name: 'Filter' }).click();
  // The search stays as it was (the kind, the area), narrowed.
  for (const kept of [/type=1/, /area=0/, /price=100-200/, /open=1/]) await expect(page).toHaveURL(kept);
  const rows = page.locator('.nearby-list .shop-row');
  // The demo's hotpots cost ¥80–160 a person, and some of them never close: there is always one.
  await expect(rows.first()).toBeVisible();
  const inBand = async (radiusM: number) => {
    const cents = await page
      .locator('.nearby-list .avg-price')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-cents'))));
    expect(cents.length).toBeGreaterThan(0);
    for (const c of cents) {
      expect(c).toBeGreaterThanOrEqual(10_000);
      expect(c).toBeLessThan(20_000);
    }
    const metres = await distances(page);
    expect(metres).toEqual([...metres].sort((a, b) => a - b));
    expect(Math.max(...metres)).toBeLessThanOrEqual(radiusM);
  };
  await inBand(5_000);
  // The filter form shows them chosen; the search form and the links to other pages keep them.
  await expect(filters.getByLabel('Per person')).toHaveValue('100-200');
  await expect(filters.getByLabel('Open now')).toBeChecked();
  const search = page.locator('form.nearby-form');
  await expect(search.locator('input[type=hidden][name=price]')).toHaveValue('100-200');
  await expect(search.locator('input[type=hidden][name=open]')).toHaveValue('1');
  const next = page.getByRole('link', { name: 'Next →' });
  if ((await next.count()) > 0) {
    await expect(next).toHaveAttribute('href', /price=100-200.*open=1/);
    const firstPage = await rows.evaluateAll((els) => els.map((e) => e.id));
    await next.click();
    await expect(page.locator('.pager')).toContainText('Page 2');
    await inBand(5_000);
    const secondPage = await rows.evaluateAll((els) => els.map((e) => e.id));
    expect(secondPage.filter((id) => firstPage.includes(id))).toHaveLength(0);
    await expect(page.getByRole('link', { name: '← Previous' })).toHaveAttribute('href', /price=100-200.*open=1/);
  }
  // A wider radius, asked for in the search form, keeps the filters.
  await page.fill('#radius', '8');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  for (const kept of [/r=8/, /price=100-200/, /open=1/]) await expect(page).toHaveURL(kept);
  await expect(rows.first()).toBeVisible();
  await inBand(8_000);
});

test('filters that leave nothing nearby say to widen the radius or clear them', async ({ page }) => {
  // No hotpot of the demo's costs under ¥50 a person.
  await page.goto('/nearby?type=1&area=0&price=0-50');
  await expect(page.locator('.nearby-list')).toHaveCount(0);
  await expect(page.locator('.nearby-none')).toContainText('Try a wider radius, or clear the filters.');
  const clear = page.getByRole('link', { name: 'Clear the filters' });
  await expect(clear).not.toHaveAttribute('href', /price=/);
  await clear.click();
  await expect(page.locator('.nearby-list .shop-row').first()).toBeVisible();
  await expect(page.locator('form.filters').getByLabel('Per person')).toHaveValue('');
});
