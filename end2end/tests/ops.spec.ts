// The operators' side end to end: a reported review hidden from the moderation queue leaves the shop's score,
// its author reads why, the audit log keeps who, what, on what and why, and a restoring brings it back; a
// reported note leaves the shop and the feeds and a second hiding marks its author a repeat offender; the
// dashboard's figures move with what shoppers do.
import { Page, test } from '@playwright/test';
import { buyOne, expect, logInDemo, logInNewAccount, screens, uniquePhone, waitForHydration } from './helpers';

/** The account's id, as the site knows it. */
async function myId(page: Page): Promise<number> {
  const me = await page.request.post('/api/auth/me');
  return (await me.json()).id;
}

/** Shop 7's rating block as anyone sees it: (reviews counted, the score's text). */
async function rating(page: Page): Promise<[number, string]> {
  await page.goto('/shops/7');
  const score = page.locator('.rating-score');
  return [Number(await score.getAttribute('data-reviews')), (await score.textContent())!];
}

test("a reported review hidden by an operator leaves the shop's score, its author reads why, and the log keeps it", async ({ browser }) => {
  test.setTimeout(90_000);
  // A new shopper gives shop 7 one star, abusively; the shop's figures take it in.
  const author = await (await browser.newContext()).newPage();
  await logInNewAccount(author, uniquePhone());
  const visitor = await (await browser.newContext()).newPage();
  const [countBefore] = await rating(visitor);
  const written = await author.request.post('/api/reviews/write', {
    form: {
      shop_id: '7', 'form[stars]': '1', 'form[aspect1]': '1', 'form[aspect2]': '1', 'form[aspect3]': '1',
      'form[spend]': '', 'form[body]': `The waiter on duty is an idiot (${Date.now()}).`, 'form[images]': '', 'form[tags]': '',
    },
  });
  expect(written.ok()).toBeTruthy();
  const reviewId = (await written.text()).trim();
  const [countWith, scoreWith] = await rating(visitor);
  expect(countWith).toBe(countBefore + 1);

  // Another shopper reports it from the shop page.
  const reporter = await (await browser.newContext()).newPage();
  await logInDemo(reporter, '13800000003');
  await reporter.goto('/shops/7');
  await waitForHydration(reporter);
  const item = reporter.locator(`li.review[data-review-id="${reviewId}"]`);
  await item.locator('.report-form summary').click();
  await item.locator(`#report-${reviewId}`).fill('Insults a member of staff');
  await item.getByRole('button', { name: 'Send the report' }).click();
  await expect(item.getByText('Reported. An operator will look at it.')).toBeVisible();

  // The operator finds it in the queue with its report; hiding wants a reason for the author.
  const ops = await (await browser.newContext()).newPage();
  await logInDemo(ops, '13800000009');
  await waitForHydration(ops);
  await ops.locator('.account-button').click();
  await ops.getByRole('link', { name: 'Moderation' }).click();
  await expect(ops).toHaveURL(/\/ops\/moderation$/);
  await waitForHydration(ops);
  const queued = ops.locator(`.open-report[data-subject="review"][data-id="${reviewId}"]`);
  await expect(queued.locator('.reports li')).toContainText(['Insults a member of staff']);
  await queued.getByRole('button', { name: 'Hide' }).click();
  await expect(queued.locator('.field-error[data-field="reason"]')).toContainText('Give the author a reason');
  await queued.locator('input').fill('Insults a named waiter');
  await queued.getByRole('button', { name: 'Hide' }).click();
  await expect(queued).toHaveCount(0);
  await expect(ops.locator(`.hidden-item[data-subject="review"][data-id="${reviewId}"]`)).toContainText('Insults a named waiter');
  await screens(ops, 'ops-moderation');

  // The shop's score no longer counts it.
  const [countHidden, scoreHidden] = await rating(visitor);
  expect(countHidden).toBe(countBefore);
  expect(scoreHidden).not.toBe(scoreWith);

  // Its author still sees it, with the reason, beside the review and in the inbox.
  await author.goto('/shops/7');
  await expect(author.locator('.review-hidden').first()).toContainText(/hidden by a moderator: Insults a named waiter/i);
  await author.goto('/me/inbox');
  await expect(author.locator('.notice[data-kind="moderation"]').first()).toContainText(
    'A moderator hid your review of', { timeout: 10_000 });
  await expect(author.locator('.notice[data-kind="moderation"]').first()).toContainText('Insults a named waiter');

  // The audit log has it — who, what, on what, why — and filters by action.
  await ops.getByRole('link', { name: 'Audit log' }).first().click();
  await expect(ops).toHaveURL(/\/ops\/audit$/);
  const entry = ops.locator('.audit-entry', { hasText: `review #${reviewId}` });
  await expect(entry).toContainText('Hid a review');
  await expect(entry).toContainText('Insults a named waiter');
  await expect(entry).toContainText('运营小周 Ops Zhou');
  await ops.selectOption('#audit-action', 'review.keep');
  await ops.getByRole('button', { name: 'Filter' }).click();
  await expect(ops).toHaveURL(/action=review\.keep/);
  await expect(ops.locator('.audit-entry', { hasText: `review #${reviewId}` })).toHaveCount(0);
  await ops.goto('/ops/audit?action=review.hide');
  await expect(ops.locator('.audit-entry', { hasText: `review #${reviewId}` })).toHaveCount(1);
  await screens(ops, 'ops-audit');

  // Restored with a reason, it counts again.
  await ops.goto('/ops/moderation');
  await waitForHydration(ops);
  const hidden = ops.locator(`.hidden-item[data-subject="review"][data-id="${reviewId}"]`);
  await hidden.locator('input').fill('The waiter asked us to restore it');
  await hidden.getByRole('button', { name: 'Restore' }).click();
  await expect(hidden).toHaveCount(0);
  expect((await rating(visitor))[0]).toBe(countWith);

  // Nobody else reads the log or the queue.
  await author.goto('/ops/audit');
  await expect(author.locator('.form-error')).toHaveText('Only operators read the audit log.');
  await author.goto('/ops/moderation');
  await expect(author.locator('.moderation .form-error')).toHaveText("This is for the platform's operators.");
});

test('a reported note leaves the shop and the feeds, its author reads why, and a second hiding marks a repeat offender', async ({ browser }) => {
  test.setTimeout(90_000);
  const author = await (await browser.newContext()).newPage();
  await logInNewAccount(author, uniquePhone());
  const authorId = await myId(author);
  const title = `Cheap tricks ${Date.now()}`;
  const posted = await author.request.post('/api/social/write-note', {
    form: { shop_id: '7', title, body: 'Call 400-123-4567 for fake receipts.', images: '' },
  });
  expect(posted.ok()).toBeTruthy();
  const noteId = (await posted.text()).trim();
  const spam = await author.request.post('/api/reviews/write', {
    form: {
      shop_id: '8', 'form[stars]': '5', 'form[aspect1]': '5', 'form[aspect2]': '5', 'form[aspect3]': '5',
      'form[spend]': '', 'form[body]': 'Best shop! Call 400-123-4567 for fake receipts.', 'form[images]': '', 'form[tags]': '',
    },
  });
  expect(spam.ok()).toBeTruthy();
  const spamId = (await spam.text()).trim();

  // Two shoppers report the note (one from its page); one reports the review.
  const reporter = await (await browser.newContext()).newPage();
  await logInDemo(reporter, '13800000003');
  await reporter.goto(`/notes/${noteId}`);
  await waitForHydration(reporter);
  await reporter.locator('.report-form summary').click();
  await reporter.locator('#report-note').fill('Advertises fake receipts');
  await reporter.getByRole('button', { name: 'Send the report' }).click();
  await expect(reporter.getByText('Reported. An operator will look at it.')).toBeVisible();
  const second = await (await browser.newContext()).newPage();
  await logInDemo(second, 'alice@example.com');
  expect((await second.request.post('/api/social/report-note', { form: { note_id: noteId, reason: 'Spam with a phone number' } })).ok()).toBeTruthy();
  expect((await second.request.post('/api/reviews/report', { form: { review_id: spamId, reason: 'Same spam as the note' } })).ok()).toBeTruthy();

  // The operator sees both reports under the one note, and hides it.
  const ops = await (await browser.newContext()).newPage();
  await logInDemo(ops, '13800000009');
  await ops.goto('/ops/moderation');
  await waitForHydration(ops);
  const note = ops.locator(`.open-report[data-subject="note"][data-id="${noteId}"]`);
  await expect(note.locator('.reports li')).toHaveCount(2);
  await screens(ops, 'ops-moderation-queue');
  await note.locator('input').fill('Advertising, not a visit');
  await note.getByRole('button', { name: 'Hide' }).click();
  await expect(note).toHaveCount(0);
  // The review by the same author now says they have one hidden already; hiding it too makes two.
  const review = ops.locator(`.open-report[data-subject="review"][data-id="${spamId}"]`);
  await expect(review.locator('.offender-badge')).toHaveText('1 hidden already');
  await review.locator('input').fill('Advertising, not a visit');
  await review.getByRole('button', { name: 'Hide' }).click();
  await expect(review).toHaveCount(0);
  const offender = ops.locator(`.offender[data-user-id="${authorId}"]`);
  await expect(offender).toHaveClass(/repeat/);
  await expect(offender).toContainText('repeat offender');

  // Gone from the shop's notes and from anyone else's reach; its author still opens it and reads why.
  await reporter.goto('/shops/7');
  await expect(reporter.locator('section.notes')).toBeVisible();
  await expect(reporter.locator('section.notes')).not.toContainText(title);
  await reporter.goto(`/notes/${noteId}`);
  await expect(reporter.getByText('Note not found.')).toBeVisible();
  await author.goto(`/notes/${noteId}`);
  await expect(author.locator('.review-hidden')).toContainText('Hidden by a moderator: Advertising, not a visit');
  await author.goto('/me/inbox');
  await expect(author.locator('.notice[data-kind="moderation"]')).toHaveCount(2);
});

test("the operators' dashboard counts a new account and an order as they happen", async ({ browser }) => {
  test.setTimeout(60_000);
  const ops = await (await browser.newContext()).newPage();
  await logInDemo(ops, '13800000009');
  await ops.getByRole('link', { name: 'Operations' }).click();
  await expect(ops).toHaveURL(/\/ops$/);
  const tile = (label: string) => ops.locator('.ops-tiles li', { hasText: label }).locator('.tile-value');
  const before = { accounts: Number(await tile('New accounts today').textContent()), orders: Number(await tile('Orders today').textContent()) };
  await expect(ops.locator('.chart-box svg')).toHaveCount(5);
  // The demo's flash sales on shop 1 are listed with what is left; this instance's breakers are closed.
  await expect(ops.locator('.ops-sale').first()).toBeVisible();
  await expect(ops.locator('.ops-health .breaker')).toHaveText(['closed', 'closed', 'closed']);
  await expect(ops.getByTestId('writer-lag')).not.toBeEmpty();
  await screens(ops, 'ops-dashboard');

  // A new shopper buys a coupon; the next reading counts both.
  const shopper = await (await browser.newContext()).newPage();
  await logInNewAccount(shopper, uniquePhone());
  await buyOne(shopper);
  await ops.reload();
  await expect(tile('New accounts today')).toHaveText(String(before.accounts + 1));
  await expect(tile('Orders today')).toHaveText(String(before.orders + 1));

  // Shoppers are refused the page.
  await shopper.goto('/ops');
  await expect(shopper.locator('.ops-dashboard')).toContainText('Only operators');
});
