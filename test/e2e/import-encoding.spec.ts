import { collectPageProblems, expect, test } from './support/journey-app.js';
import { chooseBatchFile, chooseEnvironment, localSandbox, openSection } from './support/workspace.js';
import { csvFromTemplate, TEMPLATE_ROW, templateHeader } from './support/template-csv.js';

/**
 * A CSV saved by Excel on a UK Windows machine (Windows-1252: "ë", "£", an en dash) is read as it was written, and
 * says so; read as UTF-8 on purpose, the names it cannot read are errors on their cells, never sent on; and
 * "Detect" again reads them right.
 */

test.setTimeout(60_000);

const RUN = Date.now().toString(36).toUpperCase();

test('a Windows-1252 CSV: detected, read right; forced to UTF-8 its unreadable names are errors; detected again', async ({
  app,
  page,
}) => {
  const problems = collectPageProblems(page);
  const local = await localSandbox(app);
  const header = await templateHeader(app);
  const csv = csvFromTemplate(header, [
    {
      ...TEMPLATE_ROW,
      clinicOrderId: `ENC-${RUN}`,
      firstName: 'Zoë',
      surname: 'Brontë',
      dosageInstructions: 'One a day – about £5 a pack',
    },
  ]);
  // Windows-1252 bytes: latin1 for "ë" and "£", 0x96 for the en dash.
  const bytes = Buffer.from(csv.replace('–', '\u0096'), 'latin1');

  await page.goto(app.url);
  await chooseEnvironment(page, local.name);
  await openSection(page, 'Import');
  await chooseBatchFile(page, 'excel.csv', bytes);
  const imported = page.getByRole('status').filter({ hasText: 'Imported 1 order from excel.csv' });
  await expect(imported).toContainText('1 valid, 0 with errors');
  const found = page.getByRole('region', { name: 'What was found' });
  await expect(found).toContainText('windows-1252 (detected)');
  const grid = page.getByRole('grid', { name: 'Orders in excel.csv' });
  await expect(grid.getByRole('gridcell', { name: 'Brontë', exact: true })).toBeVisible();
  await expect(grid.getByRole('gridcell', { name: 'One a day – about £5 a pack', exact: true })).toBeVisible();

  // Read as UTF-8 on purpose: what UTF-8 cannot read is an error on its cell, and the order cannot be accepted.
  await found.getByText('Change what was detected').click();
  await found.getByLabel('Encoding').selectOption('utf-8');
  await found.getByRole('button', { name: 'Import again with these settings' }).click();
  await expect(found).toContainText('utf-8 (as chosen)');
  await expect(found).toContainText(
    '⚠ Warning: The file is not valid utf-8, the encoding chosen: what cannot be read shows as � and is an error on its field. Choose "Detect", or the encoding the file was saved in.',
  );
  await expect(imported).toContainText('0 valid, 1 with errors');
  await grid.getByRole('gridcell', { name: 'Bront\uFFFD', exact: true }).click();
  const details = page.getByRole('complementary', { name: new RegExp(`ENC-${RUN}`) });
  await expect(details).toContainText(
    "Surname 'Bront\uFFFD' has characters that could not be read (shown as �): the file was read in another encoding than it was written in; import it again with its encoding",
  );
  // Nothing valid to accept: no Accept button is offered at all.
  await expect(page.getByRole('button', { name: /^Accept/ })).toHaveCount(0);

  // Detect again: read right, valid.
  await found.getByText('Change what was detected').click();
  await found.getByLabel('Encoding').selectOption({ label: 'Detect' });
  await found.getByRole('button', { name: 'Import again with these settings' }).click();
  await expect(found).toContainText('windows-1252 (detected)');
  await expect(imported).toContainText('1 valid, 0 with errors');
  await expect(grid.getByRole('gridcell', { name: 'Brontë', exact: true })).toBeVisible();
  expect(problems).toEqual([]);
});
