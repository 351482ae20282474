import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { callBridge } from './support/bridge-client.js';
import type { BrowserModeApp } from './support/browser-mode.js';
import { setSandboxFaults } from './support/sandbox-http.js';
import { saveScreenshot } from './support/screenshots.js';
import { seedOrders } from './support/seed-orders.js';
import { escapeRegExp, localSandbox, openWorkspace, uniqueSuffix } from './support/workspace.js';

/**
 * Live state that is always right (issue #13): counts that follow the store, the outage banner's next try and
 * "Try now", a cancel dialog that shows what happened, and an order detail that opens where the admin looks.
 */

async function showOnly(page: Page, clinicOrderId: string) {
  const filters = page.getByRole('search', { name: 'Filter orders' });
  await filters.getByLabel('Clinic order id').fill(clinicOrderId);
  await filters.getByRole('button', { name: 'Search' }).click();
}

async function orderId(app: BrowserModeApp, environmentId: string, clinicOrderId: string): Promise<number> {
  const page = await callBridge(app, 'orders.list', { environmentId, clinicOrderId });
  return page.orders[0]!.id;
}

async function waitForState(app: BrowserModeApp, id: number, state: string) {
  await expect
    .poll(async () => (await callBridge(app, 'orders.get', { orderId: id })).order.state, { timeout: 30_000 })
    .toBe(state);
}

/** The count beside a state in the Progress panel's table. */
const stateCount = (page: Page, label: string) =>
  page
    .getByRole('region', { name: 'Progress' })
    .getByRole('row', { name: new RegExp(`^${escapeRegExp(label)} [\\d,]+ `) })
    .getByRole('cell')
    .first();

test.describe('live state, 1024x700', () => {
  test.use({ viewport: { width: 1024, height: 700 } });

  test('a cancel confirmed by status polling shows in Submissions at once; the dialog shows what happened', async ({
    app,
    page,
  }) => {
    test.setTimeout(90_000);
    const local = await localSandbox(app);
    const batch = await seedOrders(app, local.id, { count: 1, prefix: `LIVE-${uniqueSuffix()}` });
    const [clinicOrderId] = batch.clinicOrderIds as [string];
    const id = await orderId(app, local.id, clinicOrderId);
    await waitForState(app, id, 'created');

    // Submissions stays open in a second window, never reloaded.
    const submissions = await page.context().newPage();
    await openWorkspace(submissions, app, 'Submissions');
    await expect(stateCount(submissions, 'Created')).toBeVisible();

    await openWorkspace(page, app, 'Orders');
    await showOnly(page, clinicOrderId);
    const list = page.getByRole('region', { name: `Orders in ${local.name}` });
    await list.getByRole('checkbox', { name: `Select order ${clinicOrderId}` }).check();
    await list.getByRole('button', { name: 'Cancel selected (1)…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel 1 order' });
    // The status is read again before a cancel is offered.
    await expect(dialog.getByRole('status')).toContainText('Statuses checked with the service at');
    await dialog.getByLabel('Reason for cancelling').fill('Prescriber withdrew it');
    await dialog.getByRole('button', { name: 'Cancel 1 order' }).click();
    const results = dialog.getByRole('list', { name: 'Cancel results' });
    await expect(results).toContainText(new RegExp(`${escapeRegExp(clinicOrderId)}: … Cancel (requested|sent)`));
    await waitForState(app, id, 'cancel_sent');
    // What the dialog says follows the order: sent now, not "requested".
    await expect(results).toContainText(`${clinicOrderId}: … Cancel sent`);

    // The status poller confirms it (a round asked for now rather than waited for).
    await expect(async () => {
      await callBridge(app, 'orders.refresh', { environmentId: local.id });
      expect((await callBridge(app, 'orders.get', { orderId: id })).order.state).toBe('cancelled');
    }).toPass({ timeout: 30_000, intervals: [1_000] });
    await expect(results).toContainText(`${clinicOrderId}: ✓ Cancelled: The pharmacy cancelled the order.`);
    await expect(dialog.getByRole('status')).toHaveText('Every outcome is final.');
    await saveScreenshot(page, 'live-cancel-confirmed-1024x700');

    // Submissions, untouched: the counts are the store's at once, not "Cancel sent 1 / Cancelled 0".
    const counts = (await callBridge(app, 'outbox.progress', { environmentId: local.id })).counts;
    await expect(stateCount(submissions, 'Cancelled')).toHaveText(String(counts.cancelled), { timeout: 3_000 });
    await expect(stateCount(submissions, 'Cancel sent')).toHaveText(String(counts.cancel_sent), { timeout: 3_000 });
    await submissions.close();
  });

  test('progress per batch: each batch its own N of M, rate and time left, beside all batches', async ({
    app,
    page,
  }) => {
    test.setTimeout(90_000);
    const local = await localSandbox(app);
    await openWorkspace(page, app, 'Submissions');
    const progress = page.getByRole('region', { name: 'Progress' });
    await progress.getByRole('button', { name: 'Pause sending' }).click();
    const run = uniqueSuffix();
    let first: number;
    let second: number;
    try {
      first = (await seedOrders(app, local.id, { count: 6, prefix: `BATCH-A-${run}` })).batchId;
      second = (await seedOrders(app, local.id, { count: 4, prefix: `BATCH-B-${run}` })).batchId;
    } finally {
      await progress.getByRole('button', { name: 'Resume sending' }).click();
    }
    const byBatch = progress.getByRole('region', { name: 'By batch' });
    const one = byBatch.getByRole('listitem', { name: `Batch ${first}` });
    const two = byBatch.getByRole('listitem', { name: `Batch ${second}` });
    await expect(one).toContainText(`BATCH-A-${run}.json (batch ${first}):`);
    // Each batch alone: 6 and 4 orders, whatever the environment sent before.
    await expect(one).toContainText(/\d of 6 settled/);
    await expect(two).toContainText(/\d of 4 settled/);
    await expect(one).toContainText('6 of 6 settled (100%) · done', { timeout: 30_000 });
    await expect(two).toContainText('4 of 4 settled (100%) · done', { timeout: 30_000 });
    await expect(one.getByRole('progressbar', { name: `Progress of batch ${first}` })).toHaveAttribute('value', '6');
    // Newest first.
    await expect(byBatch.getByRole('listitem').first()).toHaveAccessibleName(`Batch ${second}`);
    await saveScreenshot(page, 'live-batch-progress-1024x700');
  });

  test('the order detail opens in view, closes with Escape, and the keyboard is there', async ({ app, page }) => {
    const local = await localSandbox(app);
    const batch = await seedOrders(app, local.id, { count: 30, prefix: `VIEW-${uniqueSuffix()}` });
    const last = batch.clinicOrderIds.at(-1)!;
    await openWorkspace(page, app, 'Orders');
    const list = page.getByRole('region', { name: `Orders in ${local.name}` });
    const link = list.getByRole('link', { name: last });
    await link.focus();
    await page.keyboard.press('Enter');
    const detail = page.getByRole('region', { name: `Order ${last}` });
    await expect(detail).toBeInViewport();
    await expect(detail.getByRole('heading', { name: `Order ${last}` })).toBeFocused();
    // A few Tab presses reach its actions.
    await page.keyboard.press('Tab');
    await expect(detail.getByRole('link', { name: 'Close' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(detail.getByRole('button', { name: 'Check statuses now' })).toBeFocused();
    await saveScreenshot(page, 'live-order-detail-1024x700');

    await page.keyboard.press('Escape');
    await expect(detail).toHaveCount(0);
    await expect(link).toBeFocused();

    // Opened from far down the page, it is still where the admin looks.
    await page.mouse.wheel(0, 2_000);
    await link.click();
    await expect(detail).toBeInViewport();
  });
});

test.describe('live state, 1920x1080, dark', () => {
  test.use({ viewport: { width: 1920, height: 1080 }, colorScheme: 'dark' });

  test('the order detail opens beside the list, in view', async ({ app, page }) => {
    const local = await localSandbox(app);
    const batch = await seedOrders(app, local.id, { count: 3, prefix: `WIDE-${uniqueSuffix()}` });
    const first = batch.clinicOrderIds[0]!;
    await openWorkspace(page, app, 'Orders');
    const list = page.getByRole('region', { name: `Orders in ${local.name}` });
    await list.getByRole('link', { name: first }).click();
    const detail = page.getByRole('region', { name: `Order ${first}` });
    await expect(detail).toBeInViewport();
    const listBox = (await list.boundingBox())!;
    const detailBox = (await detail.boundingBox())!;
    expect(detailBox.x).toBeGreaterThanOrEqual(listBox.x + listBox.width - 1);
    await saveScreenshot(page, 'live-order-detail-1920x1080-dark');
    await page.keyboard.press('Escape');
    await expect(detail).toHaveCount(0);
  });

  test('the outage banner says when the next try is, counts down, and "Try now" tries at once', async ({
    app,
    page,
  }) => {
    test.setTimeout(120_000);
    const local = await localSandbox(app);
    await openWorkspace(page, app, 'Submissions');
    const banner = page.getByRole('alert').filter({ hasText: 'The Order Service is not answering' });
    await setSandboxFaults(local, { outage: true });
    try {
      await seedOrders(app, local.id, { count: 3, prefix: `DOWN-${uniqueSuffix()}` });
      await expect(banner).toBeVisible({ timeout: 45_000 });
      await expect(banner).toContainText('so sending has stopped for now');
      await expect(banner).toContainText('Nothing is lost or sent twice.');
      // Each batch says why it waits rather than a time left.
      await expect(page.getByRole('region', { name: 'By batch' }).getByRole('listitem').first()).toContainText(
        'waiting for the service',
      );
      // The next try, counted down, for the eye and for a screen reader.
      const timer = banner.getByRole('timer');
      // The clock time in the admin's locale: "14:35:10", "2:35:10 PM"...
      await expect(timer).toHaveText(/^in \d+:\d{2} \(at \d{1,2}:\d{2}:\d{2}( [AP]M)?\)$/);
      await expect(timer).toHaveAccessibleName(/^Next try in \d+ (second|minute)/);
      const before = await timer.textContent();
      await expect(timer).not.toHaveText(before!, { timeout: 3_000 });
      // The technical cause is there, behind a disclosure.
      const details = banner.getByRole('group').filter({ hasText: 'Technical details' });
      await banner.getByText('Technical details').click();
      await expect(details).toContainText(/\S/);
      await saveScreenshot(page, 'live-outage-banner-1920x1080-dark');
      // The same banner in the small window and the light theme (a screenshot, checked with axe).
      await page.setViewportSize({ width: 1024, height: 700 });
      await page.emulateMedia({ colorScheme: 'light' });
      await expect(banner.getByRole('button', { name: 'Try now' })).toBeInViewport();
      await saveScreenshot(page, 'live-outage-banner-1024x700-light');
      await page.setViewportSize({ width: 1920, height: 1080 });
      await page.emulateMedia({ colorScheme: 'dark' });

      // Still down: "Try now" tries, and the banner stays with a new next try.
      await banner.getByRole('button', { name: 'Try now' }).click();
      await expect(banner).toBeVisible();
      // Let the cooldown grow well past the time a try now needs.
      await expect
        .poll(
          async () => {
            const progress = await callBridge(app, 'outbox.progress', { environmentId: local.id });
            return progress.nextAttemptAt ? Date.parse(progress.nextAttemptAt) - Date.now() : 0;
          },
          { timeout: 60_000 },
        )
        .toBeGreaterThan(8_000);
    } finally {
      await setSandboxFaults(local, { outage: false });
    }
    // Back up: "Try now" does not wait out the countdown.
    await banner.getByRole('button', { name: 'Try now' }).click();
    await expect(banner).toHaveCount(0, { timeout: 6_000 });
  });
});
