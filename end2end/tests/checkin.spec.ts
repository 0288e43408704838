// Check-ins end to end: check in, see today marked in the calendar and the streak; a second click is refused.
import { test } from '@playwright/test';
import { expect, logInDemo, waitForHydration } from './helpers';

test('check in and see today marked; a second check-in says you already did', async ({ page }) => {
  await logInDemo(page, '13800000002');
  await page.goto('/checkin');
  await waitForHydration(page);
  const today = page.locator('.calendar .day.today');
  await expect(today).toHaveCount(1);
  await expect(today).not.toHaveClass(/checked/);
  await page.getByRole('button', { name: 'Check in today' }).click();
  await expect(today).toHaveClass(/checked/);
  await expect(page.locator('.streak')).toHaveText('1 day in a row.');
  await page.getByRole('button', { name: 'Checked in today ✓' }).click();
  await expect(page.locator('.checkin-result')).toHaveText('You already checked in today. Come back tomorrow!');
  await page.reload();
  await expect(page.locator('.calendar .day.today')).toHaveClass(/checked/);
});
