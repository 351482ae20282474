import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from './fixtures.js';
import { saveScreenshot } from './support/screenshots.js';
import { seedOrders } from './support/seed-orders.js';
import { localSandbox, openWorkspace, uniqueSuffix } from './support/workspace.js';

test('log: entries of an order found by search, the chain verified, exports downloaded masked and unmasked', async ({
  app,
  page,
}) => {
  const local = await localSandbox(app);
  const batch = await seedOrders(app, local.id, { count: 1, prefix: `LOG-${uniqueSuffix()}` });
  const [clinicOrderId] = batch.clinicOrderIds as [string];
  await openWorkspace(page, app, 'Log');

  const chain = page.getByRole('region', { name: 'Chain verification' });
  await expect(chain.getByRole('status')).toContainText(/✓ Verified: [\d,]+ entries/);
  // The whole chain on request (page by page, with progress and a cancel while it runs).
  await chain.getByRole('button', { name: 'Check the whole log' }).click();
  await expect(chain.getByRole('status')).toContainText(/✓ Verified \(the whole log\): [\d,]+ entries/);

  const entries = page.getByRole('region', { name: 'Entries' });
  const filters = entries.getByRole('search', { name: 'Filter the log' });
  await filters.getByLabel('Search').fill(clinicOrderId.toLowerCase());
  await filters.getByLabel('Kind').selectOption({ label: 'Orders' });
  // The order is sent meanwhile; its creation lands in the log.
  await expect(async () => {
    await filters.getByRole('button', { name: 'Search' }).click();
    await expect(entries.getByRole('row', { name: /Order created/ })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  // One entry holds the call and the state change it made.
  await expect(entries.getByRole('row', { name: /Order created/ })).toContainText('HTTP: 200');
  for (const row of await entries.getByRole('row').all()) {
    if (await row.getByRole('cell').count()) await expect(row).toContainText(clinicOrderId);
  }
  await saveScreenshot(page, 'log');

  // The exact clinic order id (found through indexes at any size): this order's entries only, each readable.
  await filters.getByLabel('Search').fill('');
  await filters.getByLabel('Clinic order id').fill(clinicOrderId);
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(entries.getByRole('row', { name: /Order created/ })).toBeVisible();
  const rows = entries.getByRole('row').filter({ has: page.getByRole('cell') });
  expect(await rows.count()).toBeGreaterThan(0);
  for (const row of await rows.all()) {
    await expect(row).toContainText(clinicOrderId);
    // A label in words for every action (the stored action name only as a small code below it).
    await expect(row.getByRole('rowheader')).not.toHaveText(/^[a-z]+\.[a-z.-]+/);
    // The time on one line, the clinic order id never broken inside.
    const lines = async (selector: string) =>
      row
        .locator(selector)
        .first()
        .evaluate((element) => element.getClientRects().length);
    expect(await lines('time')).toBe(1);
    expect(await lines('a')).toBe(1);
  }
  await page.setViewportSize({ width: 1024, height: 700 });
  // At 1024 px which order an entry is about is in view, without scrolling the table sideways.
  const scroller = (await entries.getByLabel('Log entries, scrollable').boundingBox())!;
  const orderColumn = (await entries.getByRole('columnheader', { name: 'Order', exact: true }).boundingBox())!;
  expect(orderColumn.x + orderColumn.width).toBeLessThanOrEqual(scroller.x + scroller.width);
  // And so are its details: on a line of their own below the entry where a Details column would not fit.
  const details = entries.getByRole('cell', { name: /^Details: .*outcome: answered/ }).first();
  await expect(details).toBeVisible();
  const detailsBox = (await details.boundingBox())!;
  expect(detailsBox.x).toBeGreaterThanOrEqual(scroller.x);
  expect(detailsBox.x + detailsBox.width).toBeLessThanOrEqual(scroller.x + scroller.width);
  await expect(entries.getByRole('columnheader', { name: 'Details' })).toBeHidden();
  await saveScreenshot(page, 'log-by-clinic-order-1024');
  await filters.getByLabel('Clinic order id').fill('');
  await filters.getByLabel('Search').fill(clinicOrderId.toLowerCase());
  await filters.getByRole('button', { name: 'Search' }).click();

  // The export follows the filters on screen: this order's entries only, streamed by the bridge as a download.
  const exporter = page.getByRole('region', { name: 'Export' });
  await expect(exporter).toContainText('Exports the entries the filters above select');
  const [masked] = await Promise.all([
    page.waitForEvent('download'),
    exporter.getByRole('button', { name: 'Export log' }).click(),
  ]);
  expect(masked.suggestedFilename()).toMatch(/^rx-batch-log-\d{4}-\d{2}-\d{2}\.csv$/);
  const maskedText = await readFile(await masked.path(), 'utf8');
  expect(maskedText).not.toContain(clinicOrderId);
  const maskedId = `${'*'.repeat(clinicOrderId.length - 3)}${clinicOrderId.slice(-3)}`;
  const maskedRows = maskedText.trimEnd().split('\r\n').slice(1);
  expect(maskedRows.length).toBeGreaterThan(0);
  for (const row of maskedRows) expect(row).toContain(maskedId);
  await expect(exporter.getByRole('status')).toContainText(/Exported [\d,]+ matching entr(y|ies) to rx-batch-log-/);
  await expect(exporter.getByRole('status')).toContainText('clinic order ids masked');
  await expect(exporter.getByRole('button', { name: 'Export log' })).toBeFocused();
  // Fetched once: the bridge removed the file, and the same address gives nothing again.
  await expect.poll(() => readdir(join(app.dataDir, 'export-downloads'))).toEqual([]);
  expect((await page.request.get(masked.url())).status()).toBe(404);

  await exporter.getByRole('radio', { name: 'JSON Lines' }).check();
  await exporter.getByRole('checkbox', { name: 'Show clinic order ids in full' }).check();
  const [unmasked] = await Promise.all([
    page.waitForEvent('download'),
    exporter.getByRole('button', { name: 'Export log' }).click(),
  ]);
  expect(unmasked.suggestedFilename()).toMatch(/\.jsonl$/);
  const lines = (await readFile(await unmasked.path(), 'utf8')).trim().split('\n');
  const ofOrder = lines.map((line) => JSON.parse(line) as { clinicOrderId: string | null; action: string });
  expect(ofOrder.filter((entry) => entry.clinicOrderId === clinicOrderId).map((e) => e.action)).toContain(
    'order.created',
  );

  // Without filters the export says it is the whole log, and holds every entry.
  await filters.getByLabel('Search').fill('');
  await filters.getByLabel('Kind').selectOption({ label: 'All' });
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(exporter).toContainText('Exports the whole log');
  await exporter.getByRole('radio', { name: 'CSV' }).check();
  const [whole] = await Promise.all([
    page.waitForEvent('download'),
    exporter.getByRole('button', { name: 'Export log' }).click(),
  ]);
  const wholeRows = (await readFile(await whole.path(), 'utf8')).trimEnd().split('\r\n').slice(1);
  expect(wholeRows.length).toBeGreaterThan(maskedRows.length);
  expect(wholeRows.map((row) => Number(row.split(',')[0]))).toEqual(
    Array.from({ length: wholeRows.length }, (_, index) => index + 1),
  );

  // Each export is itself logged, saying whether identifiers were shown.
  await filters.getByLabel('Kind').selectOption({ label: 'Log exports' });
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(entries.getByRole('row', { name: /Log exported/ }).nth(1)).toContainText('masked: no');
  const verifyAgain = chain.getByRole('button', { name: 'Verify again' });
  await expect(verifyAgain).toBeEnabled();
  // The button is disabled while the chain is checked: the keyboard comes back to it, not to the page.
  await verifyAgain.click();
  await expect(chain.getByRole('status').filter({ hasText: '✓ Verified' })).toBeVisible();
  await expect(verifyAgain).toBeFocused();
});
