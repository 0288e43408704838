// Notes, likes, follows and the feed end to end, with two demo shoppers.
import { test } from '@playwright/test';
import { expect, logInDemo, ONE_PIXEL_PNG, waitForHydration } from './helpers';

test('write a note; another shopper likes it in place, follows the author and sees the next note in the feed', async ({ browser }) => {
  test.setTimeout(60_000);
  const author = await browser.newPage();
  await logInDemo(author, '13800000002');
  await author.goto('/shops/1');
  await waitForHydration(author);
  const title = `E2E note ${Date.now()}`;
  await author.locator('.note-form summary').click();
  await author.fill('#note-title', title);
  await author.fill('#note-body', 'Great noodles, quick service.');
  // A 1×1 PNG uploaded from the form: its address joins the images list.
  await author.setInputFiles('#note-files', { name: 'dot.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
  await expect(author.locator('.upload-status')).toHaveText('1 image(s) added.');
  await expect(author.locator('#note-images')).toHaveValue(/^\/uploads\/[0-9a-f]{32}\.png$/);
  await author.setInputFiles('#note-files', { name: 'evil.png', mimeType: 'image/png', buffer: Buffer.from('<svg onload=alert(1)>') });
  await expect(author.locator('.upload-status')).toHaveText('Only JPEG, PNG, GIF or WebP images.');
  await author.getByRole('button', { name: 'Publish' }).click();
  const item = author.locator('.note-item', { hasText: title });
  await expect(item).toBeVisible();
  const href = await item.locator('.note-title').getAttribute('href');

  const reader = await browser.newPage();
  await logInDemo(reader, '13800000003');
  await reader.goto(href!);
  await waitForHydration(reader);
  await expect(reader.locator('.note .note-photos img')).toHaveAttribute('src', /^\/uploads\//);
  await expect.poll(() => reader.locator('.note .note-photos img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
  await expect(reader.locator('.like-count')).toHaveText('0');
  await reader.locator('.like-button').click();
  await expect(reader.locator('.like-count')).toHaveText('1'); // no reload
  await expect(reader.locator('.like-button')).toHaveText('♥ Liked');
  await expect(reader.locator('.likers a')).toHaveCount(1);

  await reader.locator('.note-author').click();
  await expect(reader).toHaveURL(/\/users\/\d+/);
  await waitForHydration(reader);
  const followers = Number(await reader.locator('.followers').textContent());
  await reader.getByRole('button', { name: 'Follow' }).click();
  await expect(reader.locator('.followers')).toHaveText(String(followers + 1));
  await expect(reader.locator('.follow-button')).toHaveText('Unfollow');

  // Publishing read the shop page again (the list is the server's): the form opens afresh.
  const next = `E2E followed note ${Date.now()}`;
  await waitForHydration(author);
  await author.locator('.note-form summary').click();
  await author.fill('#note-title', next);
  await author.fill('#note-body', 'Came back for the dumplings.');
  await author.getByRole('button', { name: 'Publish' }).click();
  await expect(author.locator('.note-item', { hasText: next })).toBeVisible();
  await reader.goto('/feed');
  await waitForHydration(reader);
  await expect(reader.locator('.note-list .note-item').first()).toContainText(next);

  // The author deletes the first note: it is gone from its page and from the shop's list.
  await author.goto(href!);
  await waitForHydration(author);
  await author.getByRole('button', { name: 'Delete my note' }).click();
  await expect(author.locator('.not-found')).toContainText('Note not found.');
  await author.goto('/shops/1');
  await expect(author.locator('.note-item', { hasText: next })).toBeVisible();
  await expect(author.locator('.note-item', { hasText: title })).toHaveCount(0);
});
