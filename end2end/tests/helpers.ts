// Shared steps for the end-to-end tests.
import { Browser, expect, Locator, Page, test } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

/** Waits until the wasm bundle has hydrated the page (the entry point marks <body data-hydrated> once
 *  the shell and the page's split are both live). */
export async function waitForHydration(page: Page) {
  await page.locator('body[data-hydrated="true"]').waitFor({ state: 'attached', timeout: 15_000 });
}

/** A unique phone number per test run, so re-runs never collide with earlier accounts. */
export function uniquePhone(): string {
  const n = (Date.now() % 1e8).toString().padStart(8, '0');
  return `139${n}`;
}

/** Fills and submits the log-in form. */
export async function logIn(page: Page, account: string, password: string) {
  await page.goto('/login');
  await waitForHydration(page);
  await page.fill('#account', account);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
}

export { expect };

/** The code last texted to `phone`, read where the phone would: the development outbox (DEV_OUTBOX is on
 *  for these tests), in a page of its own. */
export async function textedCode(page: Page, phone: string): Promise<string> {
  const outbox = await page.context().newPage();
  await outbox.goto('/dev/outbox');
  const message = outbox.locator('.outbox li', { hasText: phone }).first();
  await expect(message).toBeVisible();
  const code = (await message.textContent())!.match(/\b(\d{6})\b/)![1];
  await outbox.close();
  return code;
}

/** Makes a new account for `phone` by a texted code (so it has no password) and logs `page` in with it:
 *  a person of its own, whose orders and notices no other test touches. */
export async function logInNewAccount(page: Page, phone: string) {
  const w = words(langOf(test.info().project.use.locale));
  await page.goto('/login/code');
  await waitForHydration(page);
  await page.fill('#code-phone', phone);
  await page.getByRole('button', { name: w.auth.text_me_a_code }).click();
  await expect(page.locator('.code-sent')).toBeVisible();
  await page.fill('#code', await textedCode(page, phone));
  await page.getByRole('button', { name: w.auth.log_in, exact: true }).click();
  await expect(page.locator('.account-button')).toHaveText(`用户${phone.slice(-4)}`);
}

/** Logs a demo account in (password `haodian2026`) and waits until the header shows it. */
export async function logInDemo(page: Page, account: string) {
  await logIn(page, account, 'haodian2026');
  await expect(page.locator('.account-button')).toBeVisible();
}

/** Where the gap of the slider puzzle is: the piece's left edge that fills it, px. The page does not say
 *  (the gap is painted into the picture's pixels); the server under test puts every gap there
 *  (`HUMAN_CHECK_FIXED_GAP`, set by scripts/test.sh). */
export function puzzleGap(): number {
  const gap = Number(process.env.HUMAN_CHECK_FIXED_GAP);
  if (!gap) throw new Error('HUMAN_CHECK_FIXED_GAP is not set: run the browser tests through scripts/test.sh');
  return gap;
}

/** Solves the slider puzzle shown in `scope` the way a person would: `drag` presses the handle and moves
 *  it over in small steps, then lets go; `keys` moves it with the arrow keys and presses Enter. `miss`
 *  aims this many px beside the gap. */
export async function solvePuzzle(page: Page, scope: Locator, how: 'drag' | 'keys', miss = 0) {
  const slider = scope.locator('.puzzle-slider');
  await expect(slider).toBeEnabled();
  const target = puzzleGap() + miss;
  if (how === 'keys') {
    await slider.focus();
    for (let v = 0; v + 1 < target; v += 2) await slider.press('ArrowRight');
    await expect.poll(async () => Math.abs(Number(await slider.inputValue()) - target)).toBeLessThanOrEqual(1);
    await page.waitForTimeout(350); // a person takes a moment before confirming
    await slider.press('Enter');
    return;
  }
  const box = (await slider.boundingBox())!;
  const max = Number(await slider.getAttribute('max'));
  // The handle is as wide as the piece (44 px at full size), so value v sits under x + half a handle + v·scale.
  const scale = (box.width - 44 * (box.width / 300)) / max;
  const xOf = (v: number) => box.x + 22 * (box.width / 300) + v * scale;
  const y = box.y + box.height / 2;
  await page.mouse.move(xOf(0), y);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) {
    await page.mouse.move(xOf((target * i) / 20), y);
    await page.waitForTimeout(25);
  }
  // Nudge until the value lands where aimed (the handle's geometry may differ by a pixel).
  let at = xOf(target);
  for (let i = 0; i < 5; i++) {
    const off = target - Number(await slider.inputValue());
    if (Math.abs(off) <= 1) break;
    at += off * scale;
    await page.mouse.move(at, y);
  }
  await page.mouse.up();
}

/** The main pages, by who can see them (layout, accessibility and visual checks visit them all). */
export const PAGES = {
  public: ['/', '/types/1', '/search?q=%E5%BA%97', '/shops/1', '/nearby', '/nearby?type=1&area=0', '/login', '/register', '/login/code'],
  shopper: ['/orders', '/checkin', '/feed', '/me', '/me/favourites', '/me/inbox', '/me/open-shop'],
  operator: ['/ops', '/ops/moderation', '/ops/audit', '/ops/applications'],
  merchant: ['/merchant', '/merchant/shops/1', '/merchant/shops/1/coupons', '/merchant/shops/1/orders', '/merchant/redeem', '/shops/1/sales', '/shops/1/edit', '/shops/new'],
};

/** A file-name-safe name for a path: "/shops/1" → "shops-1", "/" → "home". */
export function pageName(path: string): string {
  return path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home';
}

/** Buys the first normal coupon of shop 1 (so "My orders" has a row); answers its card. */
export async function buyOne(page: Page): Promise<Locator> {
  await page.goto('/shops/1');
  await waitForHydration(page);
  const normal = page.locator('li.voucher:not(.flash)').first();
  await normal.locator('.buy-button').click();
  await expect(normal.locator('.buy-result')).toContainText('created');
  return normal;
}

/** A 1×1 PNG, for upload forms. */
export const ONE_PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A page in a browser context of its own (its own cookies: one person). */
export async function userPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

/** Photographs the whole page at desktop (1280 px) and phone (390 px) width into
 *  test-results/screens/{name}-{width}.png, failing if it scrolls sideways at either. */
export async function screens(page: Page, name: string) {
  for (const [label, width] of [['desktop', 1280], ['phone', 390]] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `test-results/screens/${name}-${label}.png`, fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The site's two languages, as `<html lang>` and the switch's cookie name them. */
export type Lang = 'zh-CN' | 'en';

/** The language a spec's browser asks for (its project's `locale`): Chinese for zh-*, else English. */
export function langOf(locale: string | undefined): Lang {
  return locale?.startsWith('zh') ? 'zh-CN' : 'en';
}

/** The site's words in `lang`, read from the translations the server is built with
 *  (app/locales/<lang>/<namespace>.json): `words('zh-CN').common.log_in` is what the pages say. */
export function words(lang: Lang): Record<string, Record<string, string>> {
  const dir = path.join(__dirname, '..', '..', 'app', 'locales', lang);
  return Object.fromEntries(
    fs.readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f.slice(0, -'.json'.length), JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))]),
  );
}

/** A translation with its `{{ name }}` values filled in. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name) => String(values[name]));
}
