import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { csvFromTemplate, TEMPLATE_ROW, templateHeader } from './support/template-csv.js';
import { collectPageProblems, expect, signInWithDeviceCode, test } from './support/journey-app.js';
import { addDeviceEnvironment } from './support/device-environment.js';
import { chooseBatchFile, chooseEnvironment, localSandbox, openSection } from './support/workspace.js';
import { sandboxOrders } from './support/sandbox-http.js';
import { saveScreenshot } from './support/screenshots.js';

/**
 * Journey 1, as an admin lives it: sign in with a device code, import a CSV with errors, fix one in the grid,
 * accept, watch it being sent, cancel an order before dispatch, see the others dispatched with tracking ids, find
 * both in the log and export it. Browser mode in Chromium against the local sandbox, nothing stubbed.
 */

test.setTimeout(180_000);

const RUN = Date.now().toString(36).toUpperCase();
const id = (n: number) => `J1-${RUN}-${n}`;

function gridCell(page: Page, text: string | RegExp) {
  return page.getByRole('grid').getByRole('gridcell', { name: text });
}

test('journey 1: CSV with errors → fix → accept → sent → dispatched and cancelled → log', async ({
  app,
  page,
  context,
}) => {
  const problems = collectPageProblems(page);
  const local = await localSandbox(app);

  // The CSV is built on the app's own template header; one order has a bad postcode (fixed in the grid), one a
  // dm+d code with a wrong check digit (left behind when the rest are accepted).
  const header = await templateHeader(app);
  expect(header).toContain('homePostCode');
  const csv = csvFromTemplate(header, [
    { ...TEMPLATE_ROW, clinicOrderId: id(1) },
    {
      ...TEMPLATE_ROW,
      clinicOrderId: id(2),
      surname: 'Sample',
      homePostCode: 'NOT A POSTCODE',
      // Delivered elsewhere, so the bad home postcode is the only bad cell.
      deliveryAddress1: '3 Test Lane',
      deliveryCity: 'York',
      deliveryPostCode: 'YO1 7HH',
      deliveryCountryCode: 'GBR',
    },
    { ...TEMPLATE_ROW, clinicOrderId: id(3), surname: 'Bloggs' },
    {
      ...TEMPLATE_ROW,
      clinicOrderId: id(3),
      surname: 'Bloggs',
      dmdCode: '322236009',
      medication: 'Paracetamol capsules',
    },
    { ...TEMPLATE_ROW, clinicOrderId: id(4), surname: 'Held', dmdCode: '42109611000001108' },
  ]);

  const environment = await addDeviceEnvironment(app, `Sandbox device ${RUN}`);
  await page.goto(app.url);
  await chooseEnvironment(page, environment.name);
  await signInWithDeviceCode(page, context);
  await saveScreenshot(page, 'journey-1-signin');

  // Import: choose the file; what was detected is shown; the grid marks the exact bad cells.
  await openSection(page, 'Import');
  await chooseBatchFile(page, 'journey-1.csv', csv);
  await expect(page.getByRole('status').filter({ hasText: 'Imported 4 orders' })).toContainText(
    '2 valid, 2 with errors',
  );
  const detected = page.getByRole('region', { name: 'What was found' });
  await expect(detected).toContainText('CSV');
  await expect(detected).toContainText('comma');
  await expect(detected).toContainText('Rx Batch template');

  const grid = page.getByRole('grid', { name: 'Orders in journey-1.csv' });
  const badPostcode = gridCell(page, /NOT A POSTCODE/);
  await expect(badPostcode).toBeVisible();
  // The problem is on the cell itself, as text (not colour alone) and as its accessible description.
  await expect(badPostcode).toHaveAccessibleDescription(/Error: .*postcode/i);
  const badDmd = gridCell(page, /42109611000001108/);
  await expect(badDmd).toHaveAccessibleDescription(/Error: .*dm\+d/i);
  await expect(gridCell(page, /322236009/)).toBeVisible(); // the second item of order 3 has its own line
  // …which says it is order 3's second item, not a row whose values were lost.
  const secondItem = grid.getByRole('row').filter({ has: page.getByRole('gridcell', { name: /322236009/ }) });
  await expect(secondItem.getByRole('gridcell').first()).toHaveText('item 2');
  await saveScreenshot(page, 'journey-1-preview');

  // Provenance of the focused cell: the CSV line and column.
  await badPostcode.click();
  const details = page.getByRole('complementary', { name: /Order 2/ });
  await expect(details).toContainText('journey-1.csv, line 3, column homePostCode');

  // Only problems (and only the columns with problems), then fix the postcode in place with the keyboard: Enter
  // edits, Enter saves and re-validates.
  await page.getByLabel('Only orders with problems').check();
  await expect(grid.getByRole('gridcell', { name: new RegExp(id(1)) })).toHaveCount(0);
  await expect(grid.getByRole('columnheader', { name: 'Telephone' })).toHaveCount(0);
  await gridCell(page, /NOT A POSTCODE/).click();
  await page.keyboard.press('ArrowRight');
  await expect(grid.getByRole('gridcell', { name: '42109611000001109', exact: true }).first()).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(gridCell(page, /NOT A POSTCODE/)).toBeFocused();
  // Escape leaves a cell as it was.
  await page.keyboard.press('Enter');
  const editor = grid.getByRole('textbox', { name: /Home postcode, order 2/ });
  await editor.fill('typo');
  await page.keyboard.press('Escape');
  await expect(editor).toHaveCount(0);
  await expect(gridCell(page, /NOT A POSTCODE/)).toBeFocused();
  await page.keyboard.press('Enter');
  await editor.fill('LS1 4AP');
  await page.keyboard.press('Enter');
  await expect(gridCell(page, /^LS1 4AP$/).first()).toBeVisible();
  await expect(page.getByRole('status', { name: 'Batch counts' })).toContainText('3 valid');
  await page.getByLabel('Only orders with problems').uncheck();

  // Accept: three go, the one with the bad dm+d code stays behind.
  const accept = page.getByRole('button', { name: 'Accept 3 valid orders' });
  await expect(page.getByText('1 order with errors will stay here to fix.')).toBeVisible();
  await accept.click();
  // Not the local sandbox: accepting asks first, naming the environment and the count.
  const confirm = page.getByRole('dialog', { name: `Accept 3 orders into ${environment.name}?` });
  await confirm.getByRole('button', { name: `Accept 3 orders into ${environment.name}` }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Accepted 3 orders' })).toContainText('1 order stays staged');
  // The accept button has gone (nothing valid is left): the keyboard is on what happened, its link next.
  await expect(page.getByRole('status').filter({ hasText: 'Accepted 3 orders' })).toBeFocused();
  await saveScreenshot(page, 'journey-1-accepted');

  // Submissions: everything accepted is settled (created at the pharmacy).
  await openSection(page, 'Submissions');
  await expect(page.getByText(/3 of 3 orders settled/)).toBeVisible({ timeout: 30_000 });
  await saveScreenshot(page, 'journey-1-submissions');
  const created = (await sandboxOrders(local)).filter((order) => String(order.clinicOrderId).startsWith(`J1-${RUN}`));
  expect(created.map((order) => order.clinicOrderId).sort()).toEqual([id(1), id(2), id(3)]);

  // Orders: cancel order 3 before the pharmacy dispatches it.
  await openSection(page, 'Orders');
  await page.getByRole('link', { name: id(3), exact: true }).click();
  await page.getByRole('button', { name: 'Cancel this order…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Reason for cancelling').fill('Prescriber withdrew it');
  await dialog.getByRole('button', { name: /^Cancel / }).click();
  await expect(dialog.getByRole('list', { name: 'Cancel results' })).toContainText(id(3));
  await dialog.getByRole('button', { name: 'Close' }).click();

  // The others move on to dispatched, with tracking ids (checked with the service on demand).
  await page.getByRole('link', { name: id(1), exact: true }).click();
  const detail = page.getByRole('region', { name: `Order ${id(1)}` });
  await expect(async () => {
    await detail.getByRole('button', { name: 'Check statuses now' }).click();
    await expect(detail).toContainText(/Prescription (Dispatched|Processed)/, { timeout: 2_000 });
  }).toPass({ timeout: 60_000, intervals: [1_000] });
  const fromSandbox = (await sandboxOrders(local)).find((order) => order.clinicOrderId === id(1));
  expect(fromSandbox?.trackingId).toBeTruthy();
  await expect(detail).toContainText(String(fromSandbox?.trackingId));
  const row2 = page.getByRole('row', { name: new RegExp(id(2)) });
  await expect(row2).toContainText(/Prescription (Dispatched|Processed)/);
  const row3 = page.getByRole('row', { name: new RegExp(id(3)) });
  await expect(row3).toContainText(/Cancel/);
  await saveScreenshot(page, 'journey-1-orders');

  // Log: both orders are there; the export downloads.
  await openSection(page, 'Log');
  for (const clinicOrderId of [id(1), id(3)]) {
    const search = page.getByRole('search', { name: 'Filter the log' });
    await search.getByLabel('Search').fill(clinicOrderId);
    await search.getByRole('button', { name: 'Search' }).click();
    await expect(page.getByRole('table').getByRole('row').nth(1)).toBeVisible();
    await expect(page.getByRole('table')).toContainText(clinicOrderId);
  }
  await expect(page.getByRole('table')).toContainText(/cancel/i);
  await saveScreenshot(page, 'journey-1-log');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export log' }).click();
  const file = await (await download).path();
  const exported = await readFile(file, 'utf8');
  expect(exported.split('\n').length).toBeGreaterThan(5);
  expect(exported).not.toContain(id(1)); // masked by default

  expect(problems).toEqual([]);
});
