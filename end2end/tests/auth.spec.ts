// Accounts end to end: register (with the texted code) → log out → log in, hydration, inline errors.
import { test } from '@playwright/test';
import { expect, logIn, textedCode, uniquePhone, waitForHydration } from './helpers';

test('register, log out, log in: the header shows the name', async ({ page }) => {
  const phone = uniquePhone();
  const name = `Tester ${phone.slice(-4)}`;

  await page.goto('/register');
  await waitForHydration(page);
  await page.fill('#account', phone);
  await page.fill('#nickname', name);
  await page.fill('#password', 'secret2026');
  await page.fill('#password_confirm', 'secret2026');
  await page.getByRole('button', { name: 'Create account' }).click();
  // The same answer whether or not the number has an account: the code, texted to the phone, finishes it.
  await expect(page.locator('.code-sent')).toContainText(`${phone.slice(0, 3)}****${phone.slice(-4)}`);
  await page.fill('#code', await textedCode(page, phone));
  await page.getByRole('button', { name: 'Finish' }).click();

  const menu = page.locator('.account-button');
  await expect(menu).toHaveText(name);
  await expect(page).toHaveURL(/\/$/);

  // The menu opens on click without a page load: proof that the wasm hydrated the header (its island is
  // lazy — only logged-in pages have it — so it is live once the page's islands are).
  await waitForHydration(page);
  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByRole('link', { name: 'Log in' })).toBeVisible();
  await expect(page.locator('.account-button')).toHaveCount(0);

  await logIn(page, phone, 'secret2026');
  await expect(page.locator('.account-button')).toHaveText(name);

  // The session survives a full reload (cookie + Redis store), and SSR renders the name.
  await page.reload();
  await expect(page.locator('.account-button')).toHaveText(name);
});

test('a wrong password shows an inline error and stays on the form', async ({ page }) => {
  await logIn(page, '13800000002', 'not-the-password1');
  const error = page.locator('.form-error');
  await expect(error).toContainText('Wrong account or password');
  await expect(page).toHaveURL(/\/login/);
  await expect(page.locator('.account-button')).toHaveCount(0);
});

test('invalid registration input is explained next to the field', async ({ page }) => {
  await page.goto('/register');
  await waitForHydration(page);
  await page.fill('#account', '12345');
  await page.fill('#nickname', 'Someone');
  await page.fill('#password', 'secret2026');
  await page.fill('#password_confirm', 'secret2026');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.locator('.field-error[data-field=account]')).toContainText('11-digit mobile number');
});

test('a demo shopper can log in and sees the account page', async ({ page }) => {
  await logIn(page, 'alice@example.com', 'haodian2026');
  await expect(page.locator('.account-button')).toHaveText('Alice');
  await page.goto('/me');
  await expect(page.locator('#nickname')).toHaveValue('Alice');
});

test('an unknown page answers 404', async ({ page }) => {
  const response = await page.goto('/no/such/page');
  expect(response?.status()).toBe(404);
  await expect(page.locator('.not-found h1')).toHaveText('404');
});

test('log in with a texted code: the first log-in creates the account', async ({ page }) => {
  const phone = uniquePhone();
  await page.goto('/login');
  await waitForHydration(page);
  await page.getByRole('link', { name: 'Log in with a code by text message' }).click();
  await expect(page).toHaveURL(/\/login\/code$/);
  await waitForHydration(page);
  await page.fill('#code-phone', phone);
  await page.getByRole('button', { name: 'Text me a code' }).click();
  await expect(page.locator('.code-sent')).toBeVisible();
  // A second request within the cooldown is refused with the wait.
  await page.getByRole('button', { name: 'Text me a code' }).click();
  await expect(page.locator('.form-error')).toContainText('You can ask for another in');

  const code = await textedCode(page, phone);

  await page.fill('#code', code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.locator('[data-field=code]')).toContainText('Wrong code. 4 tries left.');
  await page.fill('#code', code);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.locator('.account-button')).toHaveText(`用户${phone.slice(-4)}`);
});
