import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { REPO_ROOT, type BrowserModeApp } from './support/browser-mode.js';
import { collectPageProblems, expect, test } from './support/journey-app.js';
import { chooseBatchFile, chooseEnvironment, localSandbox, openSection } from './support/workspace.js';
import { saveScreenshot } from './support/screenshots.js';

/**
 * A CSV from another clinic system (test/fixtures/import/other-layout.csv: its own headers, DD/MM/YYYY dates,
 * "M"/"F" and courier names), mapped in the browser: the columns matched by name are offered, the one the app
 * cannot guess is chosen from the file's headers, what the file lacks is given as constants, values are mapped,
 * and the mapping is saved as a profile; the file is imported again with it, and the next file with that header
 * uses it by itself.
 */

test.setTimeout(90_000);

const RUN = Date.now().toString(36).toUpperCase();
/** The order number column, named per run, so no profile saved by an earlier run matches this header. */
const ORDER_COLUMN = `Order Ref ${RUN}`;

function otherLayoutCsv(firstOrder: number): string {
  const [header, ...rows] = readFileSync(join(REPO_ROOT, 'test/fixtures/import/other-layout.csv'), 'utf8')
    .trim()
    .split(/\r?\n/);
  return [
    header!.replace(/^Order No,/, `${ORDER_COLUMN},`),
    ...rows.map((row, index) => row.replace(/^A-\d+,/, `M-${RUN}-${firstOrder + index},`)),
  ].join('\r\n');
}

/** The app opened afresh on the local sandbox's Import screen: nothing chosen on a screen before carries over. */
async function openImport(app: BrowserModeApp, page: Page): Promise<void> {
  const local = await localSandbox(app);
  await page.goto(app.url);
  await chooseEnvironment(page, local.name);
  await openSection(page, 'Import');
}

test('mapping another layout: matched columns, a chosen column, constants, value maps, saved and reused', async ({
  app,
  page,
}) => {
  const problems = collectPageProblems(page);
  await openImport(app, page);

  await chooseBatchFile(page, 'other-system.csv', otherLayoutCsv(1));
  await expect(page.getByRole('status').filter({ hasText: 'Imported 2 orders' })).toContainText(
    '0 valid, 2 with errors',
  );
  await expect(page.getByRole('region', { name: 'What was found' })).toContainText(
    'No saved profile fits this header: the columns were matched by their names.',
  );

  const mapping = page.getByRole('region', { name: 'Map this layout' });
  // Matched by name (synonyms other systems use), offered to start from.
  await expect(mapping.getByLabel('File column for Surname', { exact: true })).toHaveValue('Patient Surname');
  await expect(mapping.getByLabel('File column for Date of birth', { exact: true })).toHaveValue('DOB');
  await expect(mapping.getByLabel('File column for Home postcode', { exact: true })).toHaveValue('Post Code');
  // What the app cannot guess is said, and chosen from the file's own headers.
  const unmapped = mapping.getByText('! Required and not mapped:');
  await expect(unmapped).toContainText('Clinic code');
  await expect(unmapped).toContainText('Clinic order id');
  await mapping.getByLabel('File column for Clinic order id', { exact: true }).selectOption(ORDER_COLUMN);
  // "Clinic" was matched to the clinic's name; in this file it holds the clinic's code (the name is a constant).
  await expect(mapping.getByLabel('File column for Clinic name', { exact: true })).toHaveValue('Clinic');
  await mapping.getByLabel('File column for Clinic code', { exact: true }).selectOption('Clinic');
  await mapping.getByLabel('File column for Clinic name', { exact: true }).selectOption('');
  await expect(unmapped).not.toContainText('Clinic order id');
  await expect(unmapped).not.toContainText('Clinic code');

  // What the file does not say at all, as constants for the whole file.
  for (const [label, value] of [
    ['Home country', 'GBR'],
    ['Payment type', 'Invoice'],
    ['Currency', 'GBP'],
    ['Clinic name', 'Other Clinic'],
    ['Clinic address 1', '1 Clinic Way'],
    ['Clinic postcode', 'HU1 2AA'],
    ['Clinic country', 'GBR'],
  ] as const) {
    await mapping.getByLabel(`Constant for ${label}`, { exact: true }).fill(value);
  }
  await expect(unmapped).toHaveCount(0);
  await mapping.getByLabel('Dates are written as').selectOption({ label: 'DD/MM/YYYY' });
  const valueMaps = mapping.getByLabel('Value maps, one per line');
  await valueMaps.fill('gender: M => Male\ngender: F = Female');
  await expect(mapping.getByText('! Not read')).toContainText('gender: F = Female');
  const saveProfile = mapping.getByRole('button', { name: 'Save profile and import again' });
  await expect(saveProfile).toBeDisabled();
  // A disabled button says why, beside it.
  await expect(saveProfile).toHaveAccessibleDescription('Correct the lines marked “Not read” above first.');
  await valueMaps.fill(
    [
      'gender: M => Male',
      'gender: F => Female',
      'courierCode: Royal Mail 24 => RMT24',
      'courierCode: Royal Mail 48 => RMT48',
    ].join('\n'),
  );
  await expect(mapping.getByText('! Not read')).toHaveCount(0);
  await expect(saveProfile).toBeDisabled();
  await expect(saveProfile).toHaveAccessibleDescription(/^Name the profile first/);
  await expect(mapping.getByText(/^Name the profile first/)).toBeVisible();
  await mapping.getByLabel('Profile name').fill(`Other system ${RUN}`);
  await expect(saveProfile).toBeEnabled();
  await saveScreenshot(page, 'import-mapping');
  await saveProfile.click();

  await expect(page.getByRole('status').filter({ hasText: 'Imported 2 orders' })).toContainText(
    '2 valid, 0 with errors',
  );
  // The button went with the mapping step: the keyboard is on the preview the window was brought to.
  await expect(page.getByRole('heading', { name: 'Preview: other-system.csv' })).toBeFocused();
  const grid = page.getByRole('grid', { name: 'Orders in other-system.csv' });
  await expect(grid.getByRole('gridcell', { name: `M-${RUN}-1`, exact: true })).toBeVisible();
  await expect(grid.getByRole('gridcell', { name: 'Female', exact: true })).toHaveCount(1);
  await expect(grid.getByRole('gridcell', { name: '1961-12-25', exact: true })).toHaveCount(1);
  await expect(grid.getByRole('gridcell', { name: 'RMT48', exact: true })).toHaveCount(1);
  await grid.getByRole('gridcell', { name: 'Invoice', exact: true }).first().click();
  await expect(page.getByRole('complementary', { name: new RegExp(`M-${RUN}-1`) })).toContainText(
    `A constant of the mapping profile "Other system ${RUN}" (paymentType)`,
  );
  await expect(grid.getByRole('gridcell', { name: 'Other Clinic', exact: true })).toHaveCount(2);
  await expect(grid.getByRole('gridcell', { name: 'CLINIC-O', exact: true })).toHaveCount(2);

  // The next export from that system, in the app opened afresh (nothing chosen on the screen carries over): its
  // header picks the saved profile, and its orders are valid as they come.
  await openImport(app, page);
  await chooseBatchFile(page, 'other-system-next.csv', otherLayoutCsv(3));
  await expect(page.getByRole('status').filter({ hasText: 'Imported 2 orders' })).toContainText(
    '2 valid, 0 with errors',
  );
  await expect(page.getByRole('region', { name: 'What was found' })).toContainText(`Other system ${RUN}`);
  await expect(page.getByRole('region', { name: 'Map this layout' })).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('a layout whose header names none of our fields: its first row is offered as the header, mapped and reused', async ({
  app,
  page,
}) => {
  const problems = collectPageProblems(page);
  await openImport(app, page);

  // Headers no synonym knows (named per run, so no profile of an earlier run fits them).
  const header = ['Ref', 'Who', 'Born', 'Item'].map((cell) => `${cell} ${RUN}`);
  const file = (order: string) => `${header.join(',')}\r\n${order},Example,1980-01-15,42109611000001109\r\n`;
  await chooseBatchFile(page, 'own-layout.csv', file(`O-${RUN}-1`));
  await expect(page.getByRole('alert').filter({ hasText: 'cannot be imported' })).toContainText('No header row found');
  const mapping = page.getByRole('region', { name: 'Map this layout' });
  await expect(mapping).toContainText('line 1 is offered as its header');
  const pick = (field: string, column: string) =>
    mapping.getByLabel(`File column for ${field}`, { exact: true }).selectOption(column);
  await pick('Clinic order id', header[0]!);
  await pick('Surname', header[1]!);
  await pick('Date of birth', header[2]!);
  await pick('dm+d code', header[3]!);
  await mapping.getByLabel('Profile name').fill(`Own layout ${RUN}`);
  await mapping.getByRole('button', { name: 'Save profile and import again' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Imported 1 order' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'What was found' })).toContainText(`Own layout ${RUN}`);

  // The next file with that header, in the app opened afresh: read with the saved profile unasked.
  await openImport(app, page);
  await chooseBatchFile(page, 'own-layout-next.csv', file(`O-${RUN}-2`));
  await expect(page.getByRole('status').filter({ hasText: 'Imported 1 order' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'What was found' })).toContainText(`Own layout ${RUN}`);
  await expect(page.getByRole('region', { name: 'Map this layout' })).toHaveCount(0);
  expect(problems).toEqual([]);
});
