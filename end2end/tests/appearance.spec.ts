// Visual snapshots of every page at phone (390 px) and desktop (1280 px) width, in the light and the
// dark scheme, in Chinese and in English (the language switch's cookie), against committed baselines
// (appearance.spec.ts-snapshots/): a layout that shifts, a style that stops applying or a font
// that goes missing fails here. The main pages first, then the rest of the site by who is logged in (a merchant,
// an operator, a shopper, a visitor). What changes from run to run (clocks, dates, counters, charts of the last
// days, generated codes, open or closed now) is masked; nothing is submitted but the log-in form.
// Runs first (the `look` project, which the others depend on), on the freshly seeded demo data. After an intended change of the look:
//   cd end2end && BASE_URL=… npx playwright test appearance --update-snapshots
import { Page, test } from '@playwright/test';
import * as path from 'path';
import { expect, logInDemo, pageName, userPage, waitForHydration } from './helpers';

const MAIN = ['/', '/types/1', '/shops/1', '/nearby?type=1&area=0', '/login'];

/** What one page needs beyond the common masks: `mask`, more of its parts that change from run to run;
 *  `ready`, an element to wait for (what an island fetches after hydrating); `steady`, the stylesheet below;
 *  `name`, the snapshots' name when the path's is taken (the same page seen by someone else). */
type Extra = { mask?: string[]; ready?: string; steady?: boolean; name?: string };
type Shot = [path: string, extra?: Extra];

const STEADY = path.join(__dirname, 'appearance.steady.css');

/** Rewrites the text under every element matching `selectors` with each run of ASCII letters or digits as "00"
 *  (run in the page). */
function writeAlike(selectors: string[]) {
  for (const el of Array.from(document.querySelectorAll(selectors.join(', ')))) {
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) n.nodeValue = (n.nodeValue ?? '').replace(/[0-9A-Za-z]+/g, '00');
  }
}

async function snap(page: Page, path: string, scheme: 'light' | 'dark', lang: 'zh-CN' | 'en', extra: Extra = {}) {
  await page.emulateMedia({ colorScheme: scheme });
  await page.context().addCookies([{ name: 'lang', value: lang, url: test.info().project.use.baseURL! }]);
  for (const [label, width] of [['phone', 390], ['desktop', 1280]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(path);
    await waitForHydration(page);
    if (extra.ready) await page.locator(extra.ready).first().waitFor({ state: 'attached' });
    // What a page's own masks cover is written alike every run (each run of letters or digits as "00"), so a
    // longer date, another month's name or another order code does not move what stands beside or below it.
    if (extra.mask) await page.evaluate(writeAlike, extra.mask);
    // Pictures are lazy: bring them all in before the shot.
    await page.evaluate(async () => {
      for (const img of Array.from(document.images)) img.loading = 'eager';
      await Promise.all(Array.from(document.images).map((img) => img.decode().catch(() => undefined)));
    });
    await expect(page).toHaveScreenshot(`${extra.name ?? pageName(path)}-${label}-${scheme}-${lang}.png`, {
      fullPage: true,
      animations: 'disabled',
      caret: 'hide',
      mask: [
        page.locator('.countdown, .sale-state, .uv, .stock-left, .note-list, .notes .muted, .account-menu, .review-foot, .open-state, .today-hours'),
        ...(extra.mask ?? []).map((m) => page.locator(m)),
      ],
      stylePath: extra.steady ? STEADY : undefined,
      maxDiffPixelRatio: 0.01,
    });
  }
}

test('the main pages look as they did', async ({ page }) => {
  test.setTimeout(240_000);
  for (const lang of ['zh-CN', 'en'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      for (const path of MAIN) await snap(page, path, scheme, lang);
    }
  }
});

/** Every shot of `shots`: both languages, both schemes, both widths. */
async function snapAll(page: Page, shots: Shot[]) {
  for (const lang of ['zh-CN', 'en'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      for (const [path, extra] of shots) await snap(page, path, scheme, lang, extra);
    }
  }
}

// The rest of the site, by who is logged in. Dates and times (written out in full, so they change every day),
// the charts of the last days, today's counters and generated order codes are masked.

/** A visitor's pages beyond the main ones. No note is seeded: /notes/1 is the note page's "not found". */
const PUBLIC: Shot[] = [
  ['/search?q=%E5%BA%97'],
  ['/rankings'],
  ['/register'],
  ['/login/code'],
  ['/feed', { ready: '.feed p' }],
  ['/notes/1'],
  ['/users/2'],
  ['/no-such-page'],
];

/** A shopper's pages, as Xiao Li (the seed gives them no favourites or notices, and no check-in). */
const SHOPPER: Shot[] = [
  ['/me', { mask: ['.device .muted'] }],
  ['/me/favourites'],
  ['/me/inbox', { mask: ['.notice-time'] }],
  ['/me/open-shop'],
  ['/checkin', { mask: ['.checkin h2', '.calendar'], steady: true }],
  ['/feed', { ready: '.feed p', name: 'feed-shopper' }],
  ['/shops/new'],
];

/** Xiao Li has no orders: a seeded reviewer's (three coupons, redeemed before they reviewed) fill "My orders". */
const REVIEWER = '13700000014';
const REVIEWER_SHOTS: Shot[] = [['/orders', { mask: ['.order-code', '.used-at'] }]];

/** The demo merchant's pages, on shop 1 (which has the three seeded flash sales; number 3 is over). */
const MERCHANT: Shot[] = [
  ['/merchant', { mask: ['.shop-card .figures dd'] }],
  ['/merchant/redeem'],
  ['/merchant/shops/1', { mask: ['.chart-box svg'] }],
  ['/merchant/shops/1/coupons', { mask: ['.console-table.sales td:nth-child(2)'] }],
  ['/merchant/shops/1/orders', { mask: ['.order-code', '.shop-orders td:nth-child(2)', '.shop-orders td:nth-child(7)'] }],
  ['/merchant/shops/1/reviews'],
  ['/merchant/sales/3', { mask: ['.console h1 + p.muted'] }],
  ['/shops/1/sales', { mask: ['.sale-audit td:nth-child(2)'] }],
  ['/shops/1/edit'],
];

/** The operators' pages. */
const OPERATOR: Shot[] = [
  ['/ops', { mask: ['.ops-tiles .tile-value', '.chart-box svg', '.ops-sales td:nth-child(3)', '.ops-health dd', '.ops-dashboard > p.muted'] }],
  ['/ops/moderation'],
  ['/ops/audit'],
  ['/ops/applications'],
];

// The merchant's and the operators' pages first: they show the seeded sale that opens 45 minutes after the
// seed as "upcoming" (with its Cancel button), which the look must photograph before it opens.
test("a merchant's pages look as they did", async ({ page }) => {
  test.setTimeout(300_000);
  await logInDemo(page, '13800000001');
  await snapAll(page, MERCHANT);
});

test("an operator's pages look as they did", async ({ page }) => {
  test.setTimeout(300_000);
  await logInDemo(page, '13800000009');
  await snapAll(page, OPERATOR);
});

test("a shopper's pages look as they did", async ({ browser, page }) => {
  test.setTimeout(300_000);
  await logInDemo(page, '13800000002');
  await snapAll(page, SHOPPER);
  const reviewer = await userPage(browser);
  await logInDemo(reviewer, REVIEWER);
  await snapAll(reviewer, REVIEWER_SHOTS);
  await reviewer.context().close();
});

test("a visitor's other pages look as they did", async ({ page }) => {
  test.setTimeout(300_000);
  await snapAll(page, PUBLIC);
});
