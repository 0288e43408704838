// Shared steps for the end-to-end tests.
import { expect, Page } from '@playwright/test';

/** Waits until the wasm bundle has hydrated the page (App marks <body data-hydrated> from an effect,
 *  and effects only run in the browser after hydration). */
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

/** Logs a demo account in (password `haodian2026`) and waits until the header shows it. */
export async function logInDemo(page: Page, account: string) {
  await logIn(page, account, 'haodian2026');
  await expect(page.locator('.account-button')).toBeVisible();
}
