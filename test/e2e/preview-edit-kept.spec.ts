import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { csvFromTemplate, TEMPLATE_ROW, templateHeader } from './support/template-csv.js';
import { chooseBatchFile, openWorkspace, uniqueSuffix } from './support/workspace.js';

/**
 * An edit typed into a preview cell is kept when the admin leaves the cell without Enter, as a spreadsheet keeps
 * it: a click on another cell or another screen saves it (and re-validates), Tab saves and moves right; Escape
 * alone drops it.
 */

function gridCell(page: Page, text: string | RegExp) {
  return page.getByRole('grid').getByRole('gridcell', { name: text });
}

test('a cell edited and left without Enter is saved: a click on another cell, another screen', async ({
  app,
  page,
}) => {
  const run = uniqueSuffix();
  const header = await templateHeader(app);
  const delivery = { deliveryAddress1: '3 Test Lane', deliveryCity: 'York', deliveryPostCode: 'YO1 7HH' };
  const csv = csvFromTemplate(header, [
    { ...TEMPLATE_ROW, ...delivery, deliveryCountryCode: 'GBR', clinicOrderId: `EK-${run}-1`, homePostCode: 'BAD1' },
    { ...TEMPLATE_ROW, ...delivery, deliveryCountryCode: 'GBR', clinicOrderId: `EK-${run}-2`, homePostCode: 'BAD2' },
  ]);
  await openWorkspace(page, app, 'Import');
  await chooseBatchFile(page, `edit-kept-${run}.csv`, csv);
  const counts = page.getByRole('status', { name: 'Batch counts' });
  await expect(counts).toContainText('0 valid');

  // Typed, then a click on another cell: saved and re-validated, and the focus stays where the admin clicked.
  await gridCell(page, /BAD1/).click();
  await page.keyboard.press('Enter');
  await page.getByRole('textbox', { name: /Home postcode, order 1/ }).fill('LS1 4AP');
  await gridCell(page, new RegExp(`EK-${run}-2`)).click();
  await expect(page.getByRole('textbox', { name: /Home postcode/ })).toHaveCount(0);
  await expect(gridCell(page, /^LS1 4AP$/)).toHaveCount(1);
  await expect(counts).toContainText('1 valid');

  // Typed, then another screen: the edit is saved, not dropped with the screen.
  await gridCell(page, /BAD2/).click();
  await page.keyboard.press('Enter');
  await page.getByRole('textbox', { name: /Home postcode, order 2/ }).fill('LS2 7EY');
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Orders' }).click();
  await page.getByRole('heading', { level: 2, name: 'Orders', exact: true }).waitFor();
  await page.goBack();
  await expect(gridCell(page, /^LS2 7EY$/)).toBeVisible();
  await expect(counts).toContainText('2 valid');

  // Tab saves and goes to the next cell to the right, as in a spreadsheet; Shift+Tab saves and goes left.
  await gridCell(page, /^LS2 7EY$/).click();
  await page.keyboard.press('Enter');
  await page.getByRole('textbox', { name: /Home postcode, order 2/ }).fill('LS2 7EZ');
  await page.keyboard.press('Tab');
  await expect(gridCell(page, /^LS2 7EZ$/)).toBeVisible();
  const homeCountry = page.getByRole('grid').getByRole('row').nth(2).getByRole('gridcell', { name: 'GBR' }).first();
  await expect(homeCountry).toBeFocused();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Shift+Tab');
  await expect(gridCell(page, /^LS2 7EZ$/)).toBeFocused();
  // Tabbing through a cell without typing is no edit: nothing in the order's history.
  const details = page.getByRole('complementary', { name: /Order 2/ });
  await expect(details).toContainText('LS2 7EY → LS2 7EZ');
  await expect(details).not.toContainText('GBR → GBR');

  // Escape still leaves the cell as it was.
  await page.keyboard.press('Enter');
  await page.getByRole('textbox', { name: /Home postcode, order 2/ }).fill('typo');
  await page.keyboard.press('Escape');
  await gridCell(page, new RegExp(`EK-${run}-1`)).click();
  await expect(gridCell(page, /^LS2 7EZ$/)).toBeVisible();
  await expect(gridCell(page, /typo/)).toHaveCount(0);
});

test('a field the grid has no column for, typed in the details and left, is saved too', async ({ app, page }) => {
  const run = uniqueSuffix();
  const header = await templateHeader(app);
  const csv = csvFromTemplate(header, [
    { ...TEMPLATE_ROW, clinicOrderId: `EF-${run}-1`, currencyCode: '' },
    { ...TEMPLATE_ROW, clinicOrderId: `EF-${run}-2`, currencyCode: '' },
    { ...TEMPLATE_ROW, clinicOrderId: `EF-${run}-3`, currencyCode: '' },
  ]);
  await openWorkspace(page, app, 'Import');
  await chooseBatchFile(page, `edit-field-${run}.csv`, csv);
  const counts = page.getByRole('status', { name: 'Batch counts' });
  await expect(counts).toContainText('0 valid');

  // Typed, then another order in the grid: saved, and the details follow the order clicked.
  await gridCell(page, new RegExp(`EF-${run}-1`)).click();
  await page
    .getByRole('complementary', { name: /Order 1/ })
    .getByLabel('Currency')
    .fill('GBP');
  await gridCell(page, new RegExp(`EF-${run}-2`)).click();
  await expect(counts).toContainText('1 valid');
  await expect(page.getByRole('complementary', { name: /Order 2/ })).toBeVisible();

  // Its own Save button, by keyboard, still saves (Tab to it is not leaving the field).
  const order2 = page.getByRole('complementary', { name: /Order 2/ });
  await order2.getByLabel('Currency').fill('GBP');
  await page.keyboard.press('Tab');
  await expect(order2.getByRole('button', { name: 'Save Currency' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(counts).toContainText('2 valid');

  // Typed, then another screen.
  await gridCell(page, new RegExp(`EF-${run}-3`)).click();
  const order3 = page.getByRole('complementary', { name: /Order 3/ });
  await order3.getByLabel('Currency').fill('GBP');
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Log' }).click();
  await page.getByRole('heading', { level: 2, name: 'Log', exact: true }).waitFor();
  await page.goBack();
  await expect(counts).toContainText('3 valid');
});
