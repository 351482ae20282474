import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from './fixtures.js';
import { REPO_ROOT } from './support/browser-mode.js';
import { saveScreenshot } from './support/screenshots.js';
import { chooseBatchFile, openWorkspace } from './support/workspace.js';

test.use({ viewport: { width: 1024, height: 700 } });

/**
 * Amounts written with a currency, fixed in the preview as a file would have them: the problems filter says the
 * fields at fault have no grid column and are fixed in the order's details; an amount in the order's currency
 * (£4 in a GBP order) is taken as the number, another currency is refused saying what to write instead; the keyboard
 * stays in the details after each save.
 */
test('preview: an order value fixed as "£4" in the details is read as 4; "€4" is refused saying why', async ({
  app,
  page,
}) => {
  const file = await readFile(join(REPO_ROOT, 'test', 'fixtures', 'import', 'amounts-currency.csv'));
  await openWorkspace(page, app, 'Import');
  await chooseBatchFile(page, 'amounts-currency.csv', file);
  const counts = page.getByRole('status', { name: 'Batch counts' });
  await expect(counts).toContainText('3 valid');

  await page.getByLabel('Only orders with problems').check();
  await expect(page.getByRole('status').filter({ hasText: 'fields the grid has no column for' })).toContainText(
    'fix them in each order’s details below the grid',
  );
  await page.keyboard.press('F8');
  const details = page.getByRole('complementary', { name: /^Order 4 \(AM-4\)$/ });
  const value = details.getByLabel('Order value', { exact: true });
  await expect(value).toHaveValue('$4');

  await value.fill('€4');
  await value.press('Enter');
  await expect(details).toContainText(
    "Order value '€4' is written in euros ('€': EUR), but the order's currency code is GBP: write the amount in GBP as a number alone, or correct the currency code.",
  );
  // Saved and still wrong: the keyboard is back in the same field, to try again.
  await expect(details.getByLabel('Order value', { exact: true })).toBeFocused();

  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('£4');
  await page.keyboard.press('Enter');
  await expect(details).toContainText('✓ Valid');
  await expect(details).toContainText('Order value: €4 → 4');
  await expect(counts).toContainText('4 valid');
  // The field's editor is gone with its problem: the keyboard is on the order's heading, not lost on the page.
  await expect(details.getByRole('heading', { name: 'Order 4 (AM-4)' })).toBeFocused();
  await saveScreenshot(page, 'preview-amount-fixed');
});
