import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { REPO_ROOT } from './support/browser-mode.js';
import { sandboxOrders } from './support/sandbox-http.js';
import { saveScreenshot } from './support/screenshots.js';
import { seedOrders } from './support/seed-orders.js';
import {
  chooseBatchFile,
  escapeRegExp,
  localSandbox,
  openSection,
  openWorkspace,
  uniqueSuffix,
} from './support/workspace.js';

const TEMPLATE_EXAMPLE = join(REPO_ROOT, 'test', 'fixtures', 'import', 'template-example.csv');

async function showOnly(page: Page, clinicOrderId: string) {
  const filters = page.getByRole('search', { name: 'Filter orders' });
  await filters.getByLabel('Clinic order id').fill(clinicOrderId);
  await filters.getByRole('button', { name: 'Search' }).click();
}

test('orders: find one, follow its timeline to dispatched with a tracking id; cancel another before dispatch', async ({
  app,
  page,
}) => {
  test.setTimeout(90_000);
  const local = await localSandbox(app);
  const batch = await seedOrders(app, local.id, { count: 2, prefix: `ORD-${uniqueSuffix()}` });
  const [tracked, cancelled] = batch.clinicOrderIds as [string, string];
  await openWorkspace(page, app, 'Orders');
  const list = page.getByRole('region', { name: `Orders in ${local.name}` });

  // The order to cancel first, as soon as it exists at the service (it must not be dispatched yet).
  await showOnly(page, cancelled);
  const cancelRow = list.getByRole('row', { name: new RegExp(escapeRegExp(cancelled)) });
  await expect(cancelRow).toContainText('Created');
  await cancelRow.getByRole('checkbox', { name: `Select order ${cancelled}` }).check();
  await list.getByRole('button', { name: 'Cancel selected (1)…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel 1 order' });
  await dialog.getByLabel('Reason for cancelling').fill('Prescriber withdrew the prescription');
  await dialog.getByRole('button', { name: 'Cancel 1 order' }).click();
  // What happened so far, followed live: requested, or already sent (issue #13).
  await expect(dialog.getByRole('list', { name: 'Cancel results' })).toContainText(
    new RegExp(`${escapeRegExp(cancelled)}: … Cancel (requested|sent)`),
  );
  // The keyboard is beside the results, not lost with the form's button they replaced.
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);

  // The other one, opened from the list: its timeline from import to the service's statuses.
  await showOnly(page, tracked);
  await list.getByRole('link', { name: tracked }).click();
  const detail = page.getByRole('region', { name: `Order ${tracked}` });
  const timeline = detail.getByRole('list', { name: 'Order timeline' });
  await expect(timeline).toContainText(`Accepted into the outbox from batch ${batch.batchId}`);
  await expect(timeline).toContainText(/Created at the service, pharmacy order id \d+/);
  await expect(detail).toContainText('readable offline');
  // Before any check by hand, it says when the app checks by itself (the sandbox's interval: 1 minute).
  await expect(detail).toContainText(
    'Statuses are checked with the service automatically: within 1 minute of a change, less often while nothing changes.',
  );

  // Statuses move at the sandbox every few seconds; "Check statuses now" brings them in.
  await expect(async () => {
    await detail.getByRole('button', { name: 'Check statuses now' }).click();
    await expect(detail.getByRole('status')).toContainText('Checked with the service', { timeout: 3_000 });
    // Dispatched, or already processed (which comes after dispatch and keeps its date and tracking id).
    await expect(timeline).toContainText(/Status: Prescription (Dispatched|Processed)/, { timeout: 1_000 });
  }).toPass({ timeout: 45_000, intervals: [1_000] });
  await expect(detail).toContainText('Statuses last checked with the service:');
  const atService = (await sandboxOrders(local)).find((order) => order.clinicOrderId === tracked);
  expect(atService?.trackingId).toBeTruthy();
  await expect(timeline).toContainText(`Tracking id ${atService!.trackingId!}`);
  await expect(detail).toContainText(`Tracking id${atService!.trackingId!}`);
  // The courier is known (the order names it), so the tracking id links to its https tracking page.
  const trackingLink = detail.getByRole('link', {
    name: new RegExp(`^${escapeRegExp(atService!.trackingId!)} \\(track with`),
  });
  await expect(trackingLink).toHaveAttribute(
    'href',
    new RegExp(`^https://www\\.(royalmail\\.com|dpd\\.co\\.uk)/.*${escapeRegExp(atService!.trackingId!)}$`),
  );
  await expect(detail).toContainText(`Pharmacy order id${atService!.pharmacyOrderId}`);
  await saveScreenshot(page, 'orders-detail-seeded');

  // After dispatch a cancel is refused, and the reason is shown.
  await expect(detail.getByRole('button', { name: 'Cancel this order…' })).toHaveCount(0);
  const trackedRow = list.getByRole('row', { name: new RegExp(escapeRegExp(tracked)) });
  await expect(trackedRow).toContainText(/Prescription (Dispatched|Processed)/);
  await trackedRow.getByRole('checkbox', { name: `Select order ${tracked}` }).check();
  await list.getByRole('button', { name: 'Cancel selected (1)…' }).click();
  // Checked again before it is offered, and said before anyone asks (issue #13).
  await expect(dialog.getByRole('list', { name: 'Orders that cannot be cancelled now' })).toContainText(
    /already gone out \(the service shows “Prescription (Dispatched|Processed)”\)/,
  );
  // Nothing of it can be cancelled: no reason to type for a cancel that cannot happen, only Close, and it has the
  // keyboard.
  await expect(dialog.getByRole('status').filter({ hasText: 'This order cannot be cancelled now' })).toBeVisible();
  await expect(dialog.getByLabel('Reason for cancelling')).toHaveCount(0);
  await expect(dialog.getByRole('button', { name: /^Cancel 1 order/ })).toHaveCount(0);
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  // "Cancel selected" is disabled once the selection is cleared: the keyboard goes to the order's detail.
  await expect(detail.getByRole('heading', { name: `Order ${tracked}` })).toBeFocused();

  // The cancelled one: confirmed by the service's status.
  await page.goto(`${app.origin}/#/orders`);
  await showOnly(page, cancelled);
  await list.getByRole('link', { name: cancelled }).click();
  const cancelledDetail = page.getByRole('region', { name: `Order ${cancelled}` });
  await expect(async () => {
    await cancelledDetail.getByRole('button', { name: 'Check statuses now' }).click();
    await expect(cancelledDetail).toContainText('Cancelled', { timeout: 2_000 });
    await expect(cancelledDetail.getByText('The pharmacy cancelled the order.')).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000, intervals: [1_000] });
  const cancelTimeline = cancelledDetail.getByRole('list', { name: 'Order timeline' });
  await expect(cancelTimeline).toContainText('Reason: Prescriber withdrew the prescription');
  await expect(cancelTimeline).toContainText('Cancel sent to the service');
  await expect(cancelTimeline).toContainText('Status: Cancelled');

  // Filters: by remote status, and the state filter finds the cancelled one.
  await showOnly(page, '');
  const filters = page.getByRole('search', { name: 'Filter orders' });
  await filters.getByLabel('Local state').selectOption({ label: 'Cancelled' });
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(list.getByRole('row', { name: new RegExp(escapeRegExp(cancelled)) })).toBeVisible();
  await expect(list.getByRole('row', { name: new RegExp(escapeRegExp(tracked)) })).toHaveCount(0);

  // Looked up on the service by its pharmacy order id: the same order, linked to this app's record.
  const lookup = page.getByRole('region', { name: 'Look up on the service' });
  await lookup.getByRole('textbox', { name: 'Pharmacy order id' }).fill(String(atService!.pharmacyOrderId));
  await lookup.getByRole('button', { name: 'Look up' }).click();
  const found = lookup.getByRole('row', { name: new RegExp(escapeRegExp(tracked)) });
  await expect(found).toContainText(/Prescription (Dispatched|Processed)/);
  await expect(found.getByRole('link', { name: /Open order \d+/ })).toBeVisible();
  // Sent from here, so its courier is known: the service's tracking id links to the courier's page here too.
  await expect(
    found.getByRole('link', { name: new RegExp(`^${escapeRegExp(atService!.trackingId!)} \\(track with`) }),
  ).toHaveAttribute('href', /^https:\/\//);
});

test('orders: a CSV order found by its patient’s surname, its timeline from the file lines, the source on request', async ({
  app,
  page,
}) => {
  test.setTimeout(90_000);
  const local = await localSandbox(app);
  // The fixture with this run's own clinic order ids, and a surname no other order has: ORD-1001 is lines 2–3.
  const run = uniqueSuffix();
  const surname = `Brontë-${run}`;
  const fileName = `orders-${run.toLowerCase()}.csv`;
  const csv = (await readFile(TEMPLATE_EXAMPLE, 'utf8'))
    .replaceAll('ORD-100', `SRC-${run}-`)
    .replaceAll(',Example,', `,${surname},`);
  const lines = csv.split(/\r?\n/);
  const clinicOrderId = `SRC-${run}-1`;
  expect(lines[1]).toContain(`${clinicOrderId},Ms,Alex,${surname},`);

  // Import the file in the browser and accept it; the outbox sends it to the local sandbox.
  await openWorkspace(page, app, 'Import');
  await chooseBatchFile(page, fileName, csv);
  await expect(page.getByRole('status').filter({ hasText: 'Imported 3 orders' })).toContainText('3 valid');
  await page.getByRole('button', { name: 'Accept 3 valid orders' }).click();
  await expect(page.getByText(/Accepted 3 orders into the outbox/)).toBeVisible();

  // The surname typed without its accent, in lower case, and only its start: the one order, and no surname shown.
  await openSection(page, 'Orders');
  const filters = page.getByRole('search', { name: 'Filter orders' });
  await filters.getByLabel('Patient surname').fill(`bronte-${run.slice(0, 4).toLowerCase()}`);
  await filters.getByRole('button', { name: 'Search' }).click();
  const list = page.getByRole('region', { name: `Orders in ${local.name}` });
  const row = list.getByRole('row', { name: new RegExp(escapeRegExp(clinicOrderId)) });
  await expect(row).toBeVisible();
  await expect(list.getByRole('status')).toHaveText('1 order shown.');
  await expect(list.getByRole('table')).not.toContainText(/Bront/i);
  await expect(row).toContainText('Created', { timeout: 30_000 });

  // Its timeline starts at the file's lines; the original records come only when asked for.
  await list.getByRole('link', { name: clinicOrderId }).click();
  const detail = page.getByRole('region', { name: `Order ${clinicOrderId}` });
  const timeline = detail.getByRole('list', { name: 'Order timeline' });
  await expect(timeline.getByRole('listitem').first()).toContainText(`Imported from ${fileName}, lines 2–3`);
  await expect(timeline).toContainText(/Created at the service, pharmacy order id \d+/);
  await expect(detail).not.toContainText(surname);
  const showSource = detail.getByRole('button', { name: 'Show source' });
  await expect(showSource).toHaveAttribute('aria-expanded', 'false');
  await showSource.click();
  const source = detail.getByRole('table', { name: `Lines of ${fileName}` });
  await expect(source.getByRole('row', { name: new RegExp(`^1 ${escapeRegExp(lines[0]!)}`) })).toBeVisible();
  await expect(source.getByRole('row', { name: new RegExp(`^2 ${escapeRegExp(lines[1]!)}`) })).toBeVisible();
  await expect(source.getByRole('row', { name: new RegExp(`^3 ${escapeRegExp(lines[2]!)}`) })).toBeVisible();
  await expect(source).not.toContainText(lines[3]!);
  await expect(detail.getByRole('button', { name: 'Hide source' })).toHaveAttribute('aria-expanded', 'true');

  // On to dispatched with a tracking id, for the README's picture of the whole timeline.
  await expect(async () => {
    await detail.getByRole('button', { name: 'Check statuses now' }).click();
    await expect(detail.getByRole('status').first()).toContainText('Checked with the service', { timeout: 3_000 });
    await expect(timeline).toContainText(/Status: Prescription (Dispatched|Processed)/, { timeout: 1_000 });
  }).toPass({ timeout: 45_000, intervals: [1_000] });
  await expect(timeline).toContainText(/Tracking id \S+/);
  await saveScreenshot(page, 'orders-detail');

  // Showing the source (patient data) is in the Log: the order, its environment, through which front end; no patient.
  await openSection(page, 'Log');
  const entries = page.getByRole('region', { name: 'Entries' });
  const logFilters = entries.getByRole('search', { name: 'Filter the log' });
  await logFilters.getByLabel('Search').fill(clinicOrderId);
  await logFilters.getByLabel('Kind').selectOption({ label: 'Orders' });
  await logFilters.getByRole('button', { name: 'Search' }).click();
  const viewed = entries.getByRole('row', { name: /Order source viewed/ });
  await expect(viewed).toHaveCount(1);
  await expect(viewed).toContainText(clinicOrderId);
  await expect(viewed).toContainText(local.name);
  await expect(viewed).toContainText('via: browser');
  await expect(viewed).toContainText('file type: csv');
  await expect(entries).not.toContainText(/Bront/i);
});

test('orders: the service lookup by dispatch date explains the 3-day limit and how a range is split', async ({
  app,
  page,
}) => {
  await openWorkspace(page, app, 'Orders');
  const lookup = page.getByRole('region', { name: 'Look up on the service' });
  await lookup.getByRole('radio', { name: 'Dispatch date range' }).check();
  const today = new Date().toISOString().slice(0, 10);
  const start = new Date(Date.now() - 9 * 86_400_000).toISOString().slice(0, 10);
  const from = lookup.getByRole('textbox', { name: 'Dispatched from' });
  const to = lookup.getByRole('textbox', { name: 'Dispatched to' });
  // The fields take a date day first (as the app's files write it, whatever the browser's language) or ISO, and
  // are one Tab stop each.
  const hint = 'dd/mm/yyyy or yyyy-mm-dd';
  await expect(from).toHaveAccessibleDescription(hint);
  await from.fill(start);
  await from.focus();
  await page.keyboard.press('Tab');
  await expect(to).toBeFocused();
  const [year, month, day] = today.split('-') as [string, string, string];
  await to.fill(`${day}/${month}/${year}`);
  await expect(to).not.toHaveAttribute('aria-invalid');
  await page.keyboard.press('Shift+Tab');
  await expect(from).toBeFocused();
  await expect(lookup).toContainText('at most 3 days');
  await expect(lookup).toContainText('This range (10 days) takes 3 requests.');
  await lookup.getByRole('button', { name: 'Look up' }).click();
  await expect(lookup.getByRole('status')).toContainText(
    /(No order dispatched from .+ in environment ".+" \(asked in 3 requests\)|orders? found in 3 requests)/,
  );
  await saveScreenshot(page, 'orders-lookup-dates');

  // The order filters' dates are the same fields: a day that does not exist is said so, "Clear filters" empties them.
  const filters = page.getByRole('search', { name: 'Filter orders' });
  const acceptedFrom = filters.getByRole('textbox', { name: 'From', exact: true });
  await acceptedFrom.fill('31/02/2025');
  await expect(acceptedFrom).toHaveAttribute('aria-invalid', 'true');
  await expect(acceptedFrom).toHaveAccessibleDescription(`Not a date: write it as ${hint}`);
  await acceptedFrom.fill(start);
  await expect(acceptedFrom).not.toHaveAttribute('aria-invalid');
  await filters.getByRole('button', { name: 'Clear filters' }).click();
  await expect(acceptedFrom).toHaveValue('');

  await lookup.getByRole('radio', { name: 'Clinic order id' }).check();
  await lookup.getByRole('textbox', { name: 'Clinic order id' }).fill('NOT-SENT-ANYWHERE');
  await lookup.getByRole('button', { name: 'Look up' }).click();
  await expect(lookup.getByRole('status')).toHaveText(
    /^No order with clinic order id NOT-SENT-ANYWHERE \(any clinic\) in environment ".+"\.$/,
  );
});
