// Account settings end to end: a new name and picture show on one's note; a code-only account sets a
// password and logs in with it; the devices list logs the other browser out; closing an account.
import { Browser, test } from '@playwright/test';
import { expect, logIn, logInNewAccount, ONE_PIXEL_PNG, uniquePhone, waitForHydration } from './helpers';

/** A new account made by a texted code (so it has no password), logged in on a page of its own. */
async function codeOnlyAccount(browser: Browser, phone: string) {
  const page = await (await browser.newContext()).newPage();
  await logInNewAccount(page, phone);
  return page;
}

test('change the nickname and picture and see them on a note', async ({ browser }) => {
  test.setTimeout(60_000);
  const phone = uniquePhone();
  const page = await codeOnlyAccount(browser, phone);
  // Not shop 1, whose page the appearance test compares with its picture.
  await page.goto('/shops/3');
  await waitForHydration(page);
  const title = `Renamed author ${Date.now()}`;
  await page.locator('.note-form summary').click();
  await page.fill('#note-title', title);
  await page.fill('#note-body', 'The soup is worth the queue.');
  await page.getByRole('button', { name: 'Publish' }).click();
  const href = await page.locator('.note-item', { hasText: title }).locator('.note-title').getAttribute('href');

  await page.goto('/me');
  await waitForHydration(page);
  await page.fill('#nickname', 'x');
  await page.getByRole('button', { name: 'Save profile' }).click();
  await expect(page.locator('.field-error[data-field=nickname]')).toContainText('2 to 20 characters');
  const name = `面馆常客${phone.slice(-4)}`;
  await page.fill('#nickname', name);
  await page.setInputFiles('#avatar-file', { name: 'face.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
  await expect(page.locator('.account-settings img.avatar')).toHaveAttribute('src', /^\/uploads\/[0-9a-f]{32}\.png$/);
  await page.getByRole('button', { name: 'Save profile' }).click();
  await expect(page.locator('.saved')).toContainText('Saved');

  await page.goto(href!);
  await expect(page.locator('.note-author')).toHaveText(name);
  await page.locator('.note-author').click();
  await expect(page.locator('.profile h1')).toContainText(name);
  await expect(page.locator('.profile h1 img.avatar')).toHaveAttribute('src', /^\/uploads\//);
  await page.screenshot({ path: 'test-results/account-profile.png', fullPage: true });
});

test('set a password on a code-only account, log in with it, and log the other browser out', async ({ browser }) => {
  test.setTimeout(60_000);
  const phone = uniquePhone();
  const page = await codeOnlyAccount(browser, phone);
  await page.goto('/me');
  await waitForHydration(page);
  await expect(page.getByRole('heading', { name: 'Set a password' })).toBeVisible();
  await expect(page.locator('#current_password')).toHaveCount(0);
  await page.fill('#new_password', 'noodles2026');
  await page.fill('#new_password_confirm', 'noodles2027');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page.locator('.field-error[data-field=password_confirm]')).toContainText('The two passwords differ.');
  await page.fill('#new_password_confirm', 'noodles2026');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page.locator('.saved')).toContainText('Password saved');

  // A second browser logs in with the new password; the first sees both and logs the other out.
  const other = await (await browser.newContext()).newPage();
  await logIn(other, phone, 'noodles2026');
  await expect(other.locator('.account-button')).toHaveText(`用户${phone.slice(-4)}`);
  await page.reload();
  await waitForHydration(page);
  await expect(page.getByRole('heading', { name: 'Change password' })).toBeVisible();
  await expect(page.locator('.device')).toHaveCount(2);
  await expect(page.locator('.device.current')).toContainText('This browser');
  await page.screenshot({ path: 'test-results/account-settings.png', fullPage: true });
  await page.getByRole('button', { name: 'Log out the others' }).click();
  await expect(page.locator('.saved')).toContainText('Logged out 1 other browser');
  await expect(page.locator('.device')).toHaveCount(1);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/account-settings-phone.png', fullPage: true });
  await other.reload();
  await expect(other.getByRole('link', { name: 'Log in' })).toBeVisible();
});

test('close an account: it logs out and its number starts afresh', async ({ browser }) => {
  const phone = uniquePhone();
  const page = await codeOnlyAccount(browser, phone);
  await page.goto('/me');
  await waitForHydration(page);
  await page.locator('.close-account summary').click();
  await page.fill('#confirm', '13900000000');
  await page.getByRole('button', { name: 'Close my account' }).click();
  await expect(page.locator('.field-error[data-field=confirm]')).toContainText('full mobile number');
  await page.fill('#confirm', phone);
  await page.getByRole('button', { name: 'Close my account' }).click();
  await expect(page).toHaveURL(/\/\?closed=1$/);
  await expect(page.locator('.notice-banner')).toContainText('Your account is closed');
  await expect(page.getByRole('link', { name: 'Log in' })).toBeVisible();
  await page.goto('/me');
  await expect(page.getByText('You are not logged in.')).toBeVisible();
});
