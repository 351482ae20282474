import { readFile } from 'node:fs/promises';
import type { Download, Page } from '@playwright/test';
import { collectPageProblems, expect, test } from './support/journey-app.js';
import { chooseBatchFile, chooseEnvironment, localSandbox, openSection } from './support/workspace.js';
import { saveScreenshot } from './support/screenshots.js';
import { csvFromTemplate, TEMPLATE_ROW } from './support/template-csv.js';

/**
 * The preview's tools for fixing a batch outside the grid, as an admin uses them: the template downloaded from the
 * app, the orders with errors exported as CSV (their own rows and an errors column), fixed in a spreadsheet and
 * imported again; find and replace across a batch; and an earlier batch opened again from the list of batches.
 */

test.setTimeout(90_000);

const RUN = Date.now().toString(36).toUpperCase();
const id = (n: number) => `PT-${RUN}-${n}`;

async function downloaded(page: Page, click: () => Promise<void>): Promise<{ download: Download; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return { download, text: await readFile(await download.path(), 'utf8') };
}

test('preview tools: template download, errors exported and re-imported, find and replace, an earlier batch reopened', async ({
  app,
  page,
}) => {
  const problems = collectPageProblems(page);
  const local = await localSandbox(app);
  await page.goto(app.url);
  await chooseEnvironment(page, local.name);
  await openSection(page, 'Import');

  // The template from the app: its header is what the CSV below is written in.
  const template = await downloaded(page, () => page.getByRole('button', { name: 'Download template' }).click());
  expect(template.download.suggestedFilename()).toBe('rx-batch-template.csv');
  const header = template.text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)[0]!
    .split(',');
  expect(header).toEqual(expect.arrayContaining(['clinicCode', 'clinicOrderId', 'dmdCode', 'quantity']));
  // Beside it, a guide to its columns: each one, required or not, how it is written.
  const guide = await downloaded(page, () => page.getByRole('button', { name: 'Column guide' }).click());
  expect(guide.download.suggestedFilename()).toBe('rx-batch-template-columns.txt');
  for (const column of header) expect(guide.text).toMatch(new RegExp(`^ {2}${column} `, 'm'));
  expect(guide.text).toContain('dm+d code (required)');
  await saveScreenshot(page, 'import-template-guide');

  // A workbook saved as .xlsx is refused with one sentence that says what it is and what to do.
  await chooseBatchFile(page, 'orders.xlsx', Buffer.from('PK\u0003\u0004 not a csv', 'latin1'));
  await expect(
    page
      .getByRole('alert')
      .getByText(
        'The file is an Excel workbook (.xlsx) or another ZIP archive, not a CSV or HL7 text file: in Excel, save it as "CSV UTF-8" (File, Save As) and import that.',
        { exact: true },
      ),
  ).toBeVisible();

  // Three orders: two name their courier as the clinic system does ("Royal Mail 24"), one has a bad postcode.
  const rows = [
    { ...TEMPLATE_ROW, clinicOrderId: id(1) },
    { ...TEMPLATE_ROW, clinicOrderId: id(2), courierCode: 'Royal Mail 24' },
    { ...TEMPLATE_ROW, clinicOrderId: id(3), courierCode: 'Royal Mail 24' },
    { ...TEMPLATE_ROW, clinicOrderId: id(4), homePostCode: 'NOT A POSTCODE' },
  ];
  await chooseBatchFile(page, 'tools-first.csv', csvFromTemplate(header, rows));
  await expect(page.getByRole('status').filter({ hasText: 'Imported 4 orders' })).toContainText(
    '1 valid, 3 with errors',
  );

  // The orders with errors as CSV: their own rows as the file had them, and why each is refused.
  const preview = page.getByRole('region', { name: /^Preview: tools-first\.csv/ });
  const errors = await downloaded(page, () => preview.getByRole('button', { name: 'Export errors as CSV' }).click());
  await expect(
    page.getByText(
      'Exported 3 orders with errors to tools-first-errors.csv, with their original rows and an errors column.',
    ),
  ).toBeVisible();
  // Streamed to a file by the core and fetched from the bridge once, under the name offered.
  expect(errors.download.suggestedFilename()).toBe('tools-first-errors.csv');
  const errorLines = errors.text
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r\n/);
  expect(errorLines[0]).toBe(`${header.join(',')},errors`);
  expect(errorLines.slice(1).map((line) => line.split(',')[header.indexOf('clinicOrderId')])).toEqual([
    id(2),
    id(3),
    id(4),
  ]);
  expect(errorLines[1]).toMatch(/Courier code 'Royal Mail 24'/);
  expect(errorLines[3]).toMatch(/postcode/i);

  // Fixed in a spreadsheet (the errors column left in) and imported again: every order is valid now.
  const fixed = errors.text.replace(/Royal Mail 24/g, 'RMT24').replace('NOT A POSTCODE', 'LS1 4AP');
  await chooseBatchFile(page, 'tools-fixed.csv', fixed);
  await expect(page.getByRole('status').filter({ hasText: 'Imported 3 orders' })).toContainText(
    '3 valid, 0 with errors',
  );

  // Find and replace on the first batch, opened again from the list of batches.
  const batches = page.getByRole('region', { name: 'Imported batches' });
  await batches.getByRole('button', { name: /^Review tools-first\.csv/ }).click();
  await expect(preview).toBeVisible();
  await expect(page.getByRole('status', { name: 'Batch counts' })).toContainText('1 valid');
  const findReplace = page.getByRole('region', { name: 'Find and replace' });
  await findReplace.getByLabel('Column').selectOption({ label: 'Courier' });
  await findReplace.getByLabel('Find').fill('Royal Mail 24');
  await findReplace.getByLabel('Replace with').fill('RMT24');
  // First how many cells would change; only then the change.
  await findReplace.getByRole('button', { name: 'Replace all…' }).click();
  await expect(findReplace.getByRole('status')).toHaveText('2 cells in 2 orders will change.');
  // The keyboard goes on to the next step (the button it pressed was disabled while counting), and back after.
  await expect(findReplace.getByRole('button', { name: 'Replace 2 cells' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(findReplace.getByRole('status')).toHaveText(
    'Changed 2 cells in 2 orders; each order was checked again. Undo takes it all back.',
  );
  await expect(findReplace.getByRole('button', { name: 'Replace all…' })).toBeFocused();
  // What Undo would take back shows on focus, not only on hover, and is its description.
  const undo = page.getByRole('group', { name: 'Changes' }).getByRole('button', { name: 'Undo' });
  await expect(undo).toHaveAccessibleDescription('Undo the find and replace in Courier (2 orders, 2 cells)');
  await undo.focus();
  await expect(page.getByText('Undo the find and replace in Courier (2 orders, 2 cells)')).toBeVisible();
  await findReplace.getByRole('button', { name: 'Replace all…' }).focus();
  await expect(page.getByText('Undo the find and replace in Courier (2 orders, 2 cells)')).toBeHidden();
  await expect(page.getByRole('status', { name: 'Batch counts' })).toContainText('3 valid');
  await expect(batches.getByRole('row', { name: /tools-first\.csv/ })).toContainText(/4\s*3\s*1/);

  // A value no order has changes nothing, and says so.
  await findReplace.getByLabel('Find').fill('Parcelforce 48');
  await findReplace.getByRole('button', { name: 'Replace all…' }).click();
  await expect(findReplace.getByRole('status')).toHaveText('No order has that value; nothing would change.');
  expect(problems).toEqual([]);
});
